"""`EventList.table()`: PyTorch's profiler summary table, column for column."""
from ._profiler_enums import DeviceType

_COLUMN = 12
_SPACING = 2


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_us):
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


def _format_memory(nbytes):
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} b"


def _time(time_us, unit):
    if unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if unit == "us":
        return f"{time_us:.3f}us"
    return _format_time(time_us)


def build_table(events, sort_by=None, header=None, row_limit=100, max_name_column_width=55,
                max_shapes_column_width=80, profile_memory=False, top_level_events_only=False, time_unit=None,
                use_device=None):
    if len(events) == 0:
        return ""
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        attribute = sort_by.replace("cuda", "device").replace("xpu", "device").replace("privateuse1", "device")
        events = sorted(events, key=lambda e: getattr(e, attribute), reverse=True)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    # Device columns only where kernels were timed (profiles with a device activity on a GPU that times them).
    has_device_time = any(e.self_device_time_total > 0 for e in events)
    device_name = use_device.upper() if use_device is not None else "None"
    if has_device_time:
        headers += [f"Self {device_name}", f"Self {device_name} %", f"{device_name} total", f"{device_name} time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    node_ids = any(e.node_id != -1 for e in events)
    if node_ids:
        headers.append("Node ID")
    widths = [name_width] + [_COLUMN] * (len(headers) - 1)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
    row_format = "".join("{: >" + str(w) + "}" + " " * _SPACING for w in widths)
    separator = "".join("-" * w + " " * _SPACING for w in widths)
    line_length = sum(w + _SPACING for w in widths) - _SPACING

    self_total = sum(e.self_cpu_time_total for e in events)
    # Kernels carry the device time; CPU ops only add up theirs.
    device_total = sum(e.self_device_time_total for e in events
                       if e.device_type != DeviceType.CPU and not e.is_user_annotation)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        e.self_cpu_percent = _format_time_share(e.self_cpu_time_total, self_total)
        e.total_cpu_percent = _format_time_share(e.cpu_time_total, self_total) if not e.is_async else 0
        row = [name, e.self_cpu_percent, _time(e.self_cpu_time_total, time_unit), e.total_cpu_percent,
               _time(e.cpu_time_total, time_unit), _time(e.cpu_time, time_unit)]
        if has_device_time:
            e.total_device_percent = _format_time_share(e.self_device_time_total, device_total)
            row += [_time(e.self_device_time_total, time_unit), e.total_device_percent,
                    _time(e.device_time_total, time_unit), _time(e.device_time, time_unit)]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
        row.append(e.count)
        if node_ids:
            row.append(e.node_id)
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        lines.append(row_format.format(*row))
    lines.append(separator)
    lines.append(f"Self CPU time total: {_time(self_total, time_unit)}")
    if has_device_time:
        lines.append(f"Self {device_name} time total: {_time(device_total, time_unit)}")
    return "".join(line + "\n" for line in lines)
