// The elementwise kernels that compute in int64 (the (lo, hi) pairs of int64.wgsl) or on truth
// values and bits, appended to elementwise.wgsl: integer unary and binary ops, logical ops,
// `where` and the integer matrix product.

fn binary_int_op(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    switch OP {
        case 0u: { return i64_add(x, y); }
        case 1u: { return i64_sub(x, y); }
        case 2u: { return i64_mul(x, y); }
        case 4u: { return i64_floor_divmod(x, y).q; }
        case 5u: { return i64_floor_divmod(x, y).r; }
        case 6u: { return i64_pow(x, y); }
        case 7u: { return select(y, x, i64_lt(y, x)); }
        case 8u: { return select(y, x, i64_lt(x, y)); }
        case 11u: { return x & y; }
        case 12u: { return x | y; }
        case 13u: { return x ^ y; }
        // fmod: the floored remainder moved to the dividend's sign.
        case 14u: {
            let r = i64_floor_divmod(x, y).r;
            let nonzero = r.x != 0u || r.y != 0u;
            return select(r, i64_sub(r, y), nonzero && (is_neg(r) != is_neg(x)));
        }
        // relu's gradient: x where y > 0.
        case 10u: { return select(vec2<u32>(0u, 0u), x, i64_lt(vec2<u32>(0u, 0u), y)); }
        default: { return vec2<u32>(0u, 0u); }
    }
}

fn unary_int_op(x: vec2<u32>) -> vec2<u32> {
    switch OP {
        case 0u: { return i64_neg(x); }
        case 1u: { return select(x, i64_neg(x), is_neg(x)); }
        case 2u: { return select(select(vec2<u32>(0u, 0u), vec2<u32>(1u, 0u), x.x != 0u || x.y != 0u), vec2<u32>(0xffffffffu, 0xffffffffu), is_neg(x)); }
        case 3u: { return select(x, vec2<u32>(0u, 0u), is_neg(x)); }
        case 5u: { return ~x; }
        case 6u: { return vec2<u32>(select(0u, 1u, x.x == 0u && x.y == 0u), 0u); }
        // Rounding an integer is the identity.
        default: { return x; }
    }
}

// ----- entry points ------------------------------------------------------------------------------

@compute @workgroup_size(256)
fn unary_int(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = to_i64(p.dt_a, operand(0u, o.a));
    store_bits(p.dt_out, o.o, from_i64(p.dt_out, unary_int_op(x)));
}

@compute @workgroup_size(256)
fn binary_int(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = to_i64(p.dt_a, operand(0u, o.a));
    let y = to_i64(p.dt_b, operand(1u, o.b));
    store_bits(p.dt_out, o.o, from_i64(p.dt_out, binary_int_op(x, y)));
}

// logical_and, logical_or, logical_xor of the operands' truth values.
@compute @workgroup_size(256)
fn logical(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    let x = nonzero(p.dt_a, operand(0u, o.a));
    let y = nonzero(p.dt_b, operand(1u, o.b));
    var r: bool;
    switch OP {
        case 0u: { r = x && y; }
        case 1u: { r = x || y; }
        default: { r = x != y; }
    }
    store_bits(p.dt_out, o.o, vec2<u32>(select(0u, 1u, r), 0u));
}

// out = c ? a : b, with a and b already of the output's dtype.
@compute @workgroup_size(256)
fn where_(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    if nonzero(p.dt_c, load_bits(2u, p.dt_c, o.c)) {
        store_bits(p.dt_out, o.o, operand(0u, o.a));
    } else {
        store_bits(p.dt_out, o.o, operand(1u, o.b));
    }
}

// out[i] = the sum over t < count of a[o.a + t * step_a] * b[o.b + t * step_b], in int64: the
// integer (and bool) matrix product. The host walks a and b at out's shape [.., m, n], a with its
// column stride zeroed and b with its row stride zeroed; step_a and step_b are those two strides.
// Sums and products wrap in int64 and the result keeps its low bits, which are the bits the
// CPU's product wrapping in the output's own dtype gives (bool: nonzero iff some term is).
@compute @workgroup_size(256)
fn matmul_int(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = flat_index(wid, nwg, lid);
    if i >= p.numel { return; }
    let o = offsets(i);
    var acc = vec2<u32>(0u, 0u);
    for (var t = 0u; t < p.count; t++) {
        let x = to_i64(p.dt_a, load_bits(0u, p.dt_a, o.a + t * p.step_a));
        let y = to_i64(p.dt_b, load_bits(1u, p.dt_b, o.b + t * p.step_b));
        acc = i64_add(acc, i64_mul(x, y));
    }
    store_bits(p.dt_out, o.o, from_i64(p.dt_out, acc));
}
