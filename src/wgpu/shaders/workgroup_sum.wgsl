// The deterministic workgroup reduction of the row kernels (softmax.wgsl, norm.wgsl), appended
// to their sources (after the prelude that defines T): 256 partials combined in a fixed halving
// tree, so results depend only on the sizes, never on scheduling.

var<workgroup> partial: array<T, 256>;

// The sum of every thread's `acc`, combined in the fixed halving tree; called by the whole
// workgroup. The partials may be reused once it returns.
fn workgroup_sum(acc: T, lid: u32) -> T {
    partial[lid] = acc;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s >> 1u) {
        if lid < s {
            partial[lid] = partial[lid] + partial[lid + s];
        }
        workgroupBarrier();
    }
    let total = partial[0];
    workgroupBarrier();
    return total;
}
