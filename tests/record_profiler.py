"""Records PyTorch's profiler behaviour that does not depend on timing into
fixtures/profiler.json.

Run with a real PyTorch:  /work/torchref/bin/python tests/record_profiler.py
tests/python/test_profiler.py replays it on rstorch:
- `tables`: the text of `EventList.table()` / `key_averages().table()` for events built with fixed
  times (FunctionEvent's constructor, children linked by hand), under several arguments;
- `schedules`: the ProfilerAction of each step for several `schedule(...)` arguments;
- `cycles`: for a profiler driven by `step()` with a schedule, the step number at each
  `on_trace_ready` call and how many step ranges (named `ProfilerStep*` in the events) and
  `work` ranges each delivered trace holds;
- `enums`: the members and values of the profiler enums.
"""
import json
import pathlib

import torch
from torch.autograd.profiler_util import EventList, FunctionEvent
from torch.profiler import ProfilerAction, profile, record_function, schedule

# (name, start_us, end_us, parent index or None, input shapes)
EVENTS = [
    ("model_inference", 0.0, 762.411, None, []),
    ("aten::matmul", 10.0, 338.257, 0, [[4, 5], [5, 3]]),
    ("aten::mm", 20.0, 322.749, 1, [[4, 5], [5, 3]]),
    ("aten::relu", 340.0, 420.31, 0, [[4, 3]]),
    ("aten::clamp_min", 350.0, 396.72, 3, [[4, 3], []]),
    ("aten::sum", 430.0, 552.191, 0, [[4, 3], []]),
    ("aten::relu", 560.0, 600.5, 0, [[2, 3]]),
    ("aten::relu", 610.0, 640.25, 0, [[4, 3]]),
    ("a_rather_long_user_annotation_name_that_is_cut_in_the_table_view", 650.0, 700.0, 0, []),
]

TABLE_ARGS = [
    {},
    {"sort_by": "cpu_time_total", "row_limit": 10},
    {"sort_by": "self_cpu_time_total", "row_limit": 3},
    {"sort_by": "count"},
    {"top_level_events_only": True},
    {"header": "My header", "time_unit": "ms"},
    {"max_name_column_width": 20, "time_unit": "us"},
]

SCHEDULES = [
    {"wait": 1, "warmup": 1, "active": 2},
    {"wait": 1, "warmup": 1, "active": 2, "repeat": 2},
    {"wait": 0, "warmup": 0, "active": 1},
    {"wait": 2, "warmup": 1, "active": 3, "repeat": 1, "skip_first": 2},
    {"wait": 5, "warmup": 1, "active": 2, "skip_first": 3, "skip_first_wait": 1},
]


def build_events():
    events = []
    for i, (name, start, end, parent, shapes) in enumerate(EVENTS):
        e = FunctionEvent(id=i + 1, name=name, thread=1, start_us=start, end_us=end, input_shapes=shapes,
                          stack=[])
        if parent is not None:
            e.set_cpu_parent(events[parent])
            events[parent].append_cpu_child(e)
        events.append(e)
    out = EventList(events)
    out._tree_built = True  # linked above, as a profile's events come
    return out


def tables():
    out = []
    for args in TABLE_ARGS:
        events = build_events()
        out.append({"args": args, "events": events.table(**args),
                    "averages": events.key_averages().table(**args),
                    "by_shape": events.key_averages(group_by_input_shapes=True).table(**args)})
    total = build_events().key_averages().total_average()
    return out, {"self_cpu_time_total": total.self_cpu_time_total, "cpu_time_total": total.cpu_time_total,
                 "count": total.count, "key": total.key}


def cycles(args, steps):
    calls = []

    def ready(prof):
        names = [e.name for e in prof.events()]
        calls.append({"step_num": prof.step_num, "profiler_steps": names.count("ProfilerStep*"),
                      "work": names.count("work")})
    with profile(schedule=schedule(**args), on_trace_ready=ready) as prof:
        for _ in range(steps):
            with record_function("work"):
                torch.ones(2).add(1)
            prof.step()
    return calls


def main():
    table_cases, total = tables()
    data = {
        "table_events": EVENTS,
        "tables": table_cases,
        "total_average": total,
        "schedules": [{"args": a, "actions": [schedule(**a)(s).name for s in range(24)]} for a in SCHEDULES],
        "cycles": [{"args": a, "steps": 12, "calls": cycles(a, 12)} for a in SCHEDULES[:4]],
        "enums": {name: {m: int(v) for m, v in getattr(torch.autograd, name).__members__.items()}
                  for name in ("ProfilerActivity", "ProfilerState", "DeviceType")},
        "actions": {m.name: m.value for m in ProfilerAction},
    }
    path = pathlib.Path(__file__).parent / "fixtures" / "profiler.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
