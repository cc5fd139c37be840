"""DistributedDataParallel.join(): training on uneven inputs. A process that has run out of batches
leaves the `with model.join():` loop and, until every process has, shadows the collectives the
others still run each iteration: the count of processes still training (which every forward
inside join() all-reduces first), the buffers' broadcast, and one all_reduce of zeros per gradient
bucket. When the count reaches zero every replica takes the parameters and buffers of the last
process to finish (the highest rank among them), so the replicas leave equal."""
import rstorch

_EARLY = "Detected at least one rank that exhausted inputs. Throwing across all ranks."


class _Join:
    def __init__(self, ddp, divide_by_initial_world_size, throw_on_early_termination):
        self.ddp = ddp
        self.divide_by_initial = divide_by_initial_world_size
        self.throw = throw_on_early_termination

    def _count(self, active):
        from ... import distributed as dist
        count = rstorch.tensor([1 if active else 0], dtype=rstorch.int64)
        dist.all_reduce(count, group=self.ddp.process_group)
        return int(count.item())

    def forward_started(self):
        """In each forward inside join(): count the processes still training."""
        ddp = self.ddp
        n = self._count(True)
        if self.throw and n < ddp.process_group.size():
            raise RuntimeError(_EARLY)
        ddp._reducer.size = ddp.process_group.size() if self.divide_by_initial else n

    def shadow_until_all_joined(self):
        from ... import distributed as dist
        ddp, group = self.ddp, self.ddp.process_group
        first, last = True, False
        while True:
            n = self._count(False)
            if n == 0:
                last = first
                break
            if self.throw:
                raise RuntimeError(_EARLY)
            first = False
            with rstorch.no_grad():
                if ddp.broadcast_buffers:
                    for buffer in ddp.module.buffers():
                        dist.broadcast(buffer, src=ddp._rank0, group=group)
                if ddp.require_backward_grad_sync:
                    # Non-blocking, as the others' buckets are: MPI matches a non-blocking
                    # collective only with non-blocking ones.
                    works = []
                    for bucket in ddp._reducer.buckets:
                        params = [ddp._reducer.params[i] for i in bucket]
                        zeros = rstorch.zeros(sum(p.numel() for p in params), dtype=params[0].dtype)
                        works.append(dist.all_reduce(zeros, group=group, async_op=True))
                    for work in works:
                        work.wait()
        # Every replica takes the state of the last process to finish.
        who = rstorch.tensor([group.rank() if last else -1], dtype=rstorch.int64)
        dist.all_reduce(who, op=dist.ReduceOp.MAX, group=group)
        source = dist.get_global_rank(group, int(who.item()))
        with rstorch.no_grad():
            for tensor in ddp.module.state_dict().values():
                dist.broadcast(tensor, src=source, group=group)
        ddp._reducer.size = group.size()
