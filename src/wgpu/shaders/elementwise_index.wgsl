// The elementwise kernels that move elements through storage offsets, appended to
// elementwise.wgsl: gathers and scatters through offsets the host computed (take, put), along a
// dim by an index tensor on the device (gather_index, scatter_claim and scatter_write), and the
// ordered scatters whose positions the device computes (index_offsets, segment_list,
// segment_last; the ordered sums over a segment list are elementwise_math.wgsl's segment_sum).

// ----- gathers and scatters through offsets the host computed or along a dim ------------------

// out[i] = a[c[i]]: a gather through storage offsets the host computed (c walks its own layout).
@compute @workgroup_size(256)
fn take(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    store_bits(p.dt_out, o.o, load_bits(0u, p.dt_a, c[o.c]));
}

// out[i] = a[o.a + c_i * count]: the gather along one dim by an index tensor on the device (c,
// of any integer dtype, walked by its own strides; a walks the source with the gathered dim's
// stride zeroed). An index outside [0, scalar_b.x) writes nothing and sets the flag word
// scalar_b.y of `out` (past the elements), for the host to read back as one word.
@compute @workgroup_size(256)
fn gather_index(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let v = to_i64(p.dt_c, load_bits(2u, p.dt_c, o.c));
    if v.y != 0u || v.x >= p.scalar_b.x {
        atomicOr(&out[p.scalar_b.y], 1u);
        return;
    }
    store_bits(p.dt_out, o.o, load_bits(0u, p.dt_a, o.a + v.x * p.count));
}

// The scatter along one dim by an index tensor on the device, in two passes over the index's
// elements i (row-major; c, of any integer dtype, walked by its own strides; the target is
// o.o + c_i * count, o walking the output with the scattered dim's stride zeroed). An index
// outside [0, step_a) writes nothing and sets the flag word step_b of the claim buffer.
// scatter_claim: claim[target] = the largest i + 1 aiming there (out is the claim buffer).
@compute @workgroup_size(256)
fn scatter_claim(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let v = to_i64(p.dt_c, load_bits(2u, p.dt_c, o.c));
    if v.y != 0u || v.x >= p.step_a {
        atomicOr(&out[p.step_b], 1u);
        return;
    }
    atomicMax(&out[o.o + v.x * p.count], i + 1u);
}

// scatter_write: out[target] = a[o.a] for the i that claimed the target (b is the claim
// buffer), so of repeated targets the last in index order wins, as on the CPU.
@compute @workgroup_size(256)
fn scatter_write(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let v = to_i64(p.dt_c, load_bits(2u, p.dt_c, o.c));
    if v.y != 0u || v.x >= p.step_a { return; }
    let t = o.o + v.x * p.count;
    if b[t] == i + 1u {
        store_bits(p.dt_out, t, operand(0u, o.a));
    }
}

// out[c[2i]] = a[c[2i + 1]] for `numel` pairs: a scatter to distinct offsets (the host keeps
// only the last write to each).
@compute @workgroup_size(256)
fn put(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    store_bits(p.dt_out, p.off_out + c[2u * i], load_bits(0u, p.dt_a, p.off_a + c[2u * i + 1u]));
}

// ----- scatters through positions computed on the device ---------------------------------------

// out[i] (int64) = o.a + x * count, x the element of the index c at i (any integer dtype,
// walked by its own strides; `a` is walked for its offsets only, never read): the storage
// offset an integer index selects along a dim of stride `count` and size scalar_b.x. With flag
// 8 a negative index counts from the end of the dim. An index outside the dim sets word
// scalar_b.y of out (past the offsets), for the host to read back as one word.
@compute @workgroup_size(256)
fn index_offsets(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let v = to_i64(p.dt_c, load_bits(2u, p.dt_c, o.c));
    let size = p.scalar_b.x;
    var x = v.x;
    var inside = v.y == 0u;
    if (p.flags & 8u) != 0u && v.y == 0xffffffffu && v.x >= 0u - size {
        // -size <= v < 0: the u32 sum wraps to v + size.
        x = v.x + size;
        inside = true;
    }
    if !inside || x >= size {
        atomicOr(&out[p.scalar_b.y], 1u);
        return;
    }
    store_bits(I64, o.o, vec2<u32>(o.a + x * p.count, 0u));
}

// The list segment_sum and segment_last read, from m = step_a int64 positions a (each below
// count, at a's offset) and their stable sorting permutation b (int64): out[t] for t <= count
// is the number of positions below t (a binary search through the permutation), and out[count
// + 1 + j] = step_b + b[j], the storage offset in the source of the j-th value in target order.
// Values aimed at one target so keep their order, which makes the sums the same on every run.
@compute @workgroup_size(256)
fn segment_list(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    if i > p.count {
        atomicStore(&out[i], p.step_b + load_bits(1u, I64, p.off_b + i - p.count - 1u).x);
        return;
    }
    var lo = 0u;
    var hi = p.step_a;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        let t = load_bits(0u, I64, p.off_a + load_bits(1u, I64, p.off_b + mid).x).x;
        if t < i { lo = mid + 1u; } else { hi = mid; }
    }
    atomicStore(&out[i], lo);
}

// out[i] = a[c[count + end - 1]] where c[i] < c[i + 1] = end: of the values aimed at element i,
// the last in order (the puts of index_put and of gradients through writes).
@compute @workgroup_size(256)
fn segment_last(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let end = c[i + 1u];
    if c[i] == end { return; }
    store_bits(p.dt_out, p.off_out + i, load_bits(0u, p.dt_a, c[p.count + end - 1u]));
}
