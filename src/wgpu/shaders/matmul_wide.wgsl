// `matmul_wide`, for products large enough to fill a GPU with big tiles (follows matmul.wgsl,
// whose Params and bindings it uses). Each workgroup of 256 threads computes a 128x128 tile of C,
// each thread an 8x8 block of it: rows ty*4.. and 64+ty*4.., columns tx*4.. and 64+tx*4.., so
// its reads of workgroup memory are four vec4s per step of k for 64 multiply-adds, and every
// value staged there is used 128 times. Slices of A and B 8 deep alternate between two buffers:
// while the threads multiply one, they hold their loads of the next in registers and store them
// into the other after, so one barrier per slice suffices and the loads overlap the arithmetic.

const WIDE: u32 = 128u;
const WIDE_DEPTH: u32 = 8u;
// The other buffer's offset in wide_a / wide_b.
const WIDE_BUFFER: u32 = 256u;

// Per buffer, k-major: [WIDE_DEPTH][32 vec4s of four rows of A (four columns of B)].
var<workgroup> wide_a: array<vec4<T>, 512>;
var<workgroup> wide_b: array<vec4<T>, 512>;

// Each thread stages four values of A and four of B per slice, consecutive threads walking the
// operand's adjacent elements: four values along k from a (row, k) when `along_k`, else four
// rows (columns of B) from it. Zeros past the edges.
fn wide_load_a(base: u32, row: u32, k: u32, along_k: bool) -> vec4<T> {
    var v = vec4<T>(0.0);
    for (var q = 0u; q < 4u; q++) {
        let r = row + select(q, 0u, along_k);
        let kq = k + select(0u, q, along_k);
        if r < p.m && kq < p.k {
            v[q] = a_at(base + r * p.a_rs + kq * p.a_cs);
        }
    }
    return v;
}

fn wide_load_b(base: u32, col: u32, k: u32, along_k: bool) -> vec4<T> {
    var v = vec4<T>(0.0);
    for (var q = 0u; q < 4u; q++) {
        let cq = col + select(q, 0u, along_k);
        let kq = k + select(0u, q, along_k);
        if kq < p.k && cq < p.n {
            v[q] = b_at(base + kq * p.b_rs + cq * p.b_cs);
        }
    }
    return v;
}

// Store a thread's four staged values at tile row (column) `i` and slice depth `k` of buffer `buf`.
fn wide_stage_a(buf: u32, v: vec4<T>, i: u32, k: u32, along_k: bool) {
    if along_k {
        for (var q = 0u; q < 4u; q++) {
            wide_a[buf + (k + q) * 32u + i / 4u][i % 4u] = v[q];
        }
    } else {
        wide_a[buf + k * 32u + i / 4u] = v;
    }
}

fn wide_stage_b(buf: u32, v: vec4<T>, i: u32, k: u32, along_k: bool) {
    if along_k {
        for (var q = 0u; q < 4u; q++) {
            wide_b[buf + (k + q) * 32u + i / 4u][i % 4u] = v[q];
        }
    } else {
        wide_b[buf + k * 32u + i / 4u] = v;
    }
}

fn wide_store_c(batch: u32, r: u32, col: u32, v: vec4<T>) {
    if r >= p.m {
        return;
    }
    for (var j = 0u; j < 4u; j++) {
        if col + j < p.n {
            c[batch * p.m * p.n + r * p.n + col + j] = finish(batch, r, col + j, v[j]);
        }
    }
}

@compute @workgroup_size(256)
fn matmul_wide(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let batch = p.batch_base + wid.z;
    let row0 = wid.y * WIDE;
    let col0 = wid.x * WIDE;
    let a_base = p.off_a + batch * p.a_bs;
    let b_base = p.off_b + batch * p.b_bs;
    // A is walked along k when its columns are adjacent; B along its columns unless only its
    // rows are (a transposed B, as linear's weight.t()).
    let a_along_k = p.a_cs == 1u;
    let b_along_k = p.b_rs == 1u && p.b_cs != 1u;
    // This thread's first staged value: tile row (column) and slice depth.
    let a_i = select((lid % 32u) * 4u, lid / 2u, a_along_k);
    let a_k = select(lid / 32u, (lid % 2u) * 4u, a_along_k);
    let b_i = select((lid % 32u) * 4u, lid / 2u, b_along_k);
    let b_k = select(lid / 32u, (lid % 2u) * 4u, b_along_k);

    var next_a = wide_load_a(a_base, row0 + a_i, a_k, a_along_k);
    var next_b = wide_load_b(b_base, col0 + b_i, b_k, b_along_k);
    wide_stage_a(0u, next_a, a_i, a_k, a_along_k);
    wide_stage_b(0u, next_b, b_i, b_k, b_along_k);
    workgroupBarrier();

    let tx = lid % 16u;
    let ty = lid / 16u;
    // acc[8h + 2i + g]: row ty*4+i of row half h, columns tx*4.. of column half g.
    var acc: array<vec4<T>, 16>;
    var buf = 0u;
    for (var k0 = 0u; k0 < p.k; k0 += WIDE_DEPTH) {
        let next = k0 + WIDE_DEPTH;
        let more = next < p.k;
        if more {
            next_a = wide_load_a(a_base, row0 + a_i, next + a_k, a_along_k);
            next_b = wide_load_b(b_base, col0 + b_i, next + b_k, b_along_k);
        }
        for (var kk = 0u; kk < WIDE_DEPTH; kk++) {
            let at = buf + kk * 32u;
            let a0 = wide_a[at + ty];
            let a1 = wide_a[at + 16u + ty];
            let b0 = wide_b[at + tx];
            let b1 = wide_b[at + 16u + tx];
            // Written out so that every index of acc is a constant and it stays in registers.
            acc[0] = fma(vec4<T>(a0.x), b0, acc[0]);
            acc[1] = fma(vec4<T>(a0.x), b1, acc[1]);
            acc[2] = fma(vec4<T>(a0.y), b0, acc[2]);
            acc[3] = fma(vec4<T>(a0.y), b1, acc[3]);
            acc[4] = fma(vec4<T>(a0.z), b0, acc[4]);
            acc[5] = fma(vec4<T>(a0.z), b1, acc[5]);
            acc[6] = fma(vec4<T>(a0.w), b0, acc[6]);
            acc[7] = fma(vec4<T>(a0.w), b1, acc[7]);
            acc[8] = fma(vec4<T>(a1.x), b0, acc[8]);
            acc[9] = fma(vec4<T>(a1.x), b1, acc[9]);
            acc[10] = fma(vec4<T>(a1.y), b0, acc[10]);
            acc[11] = fma(vec4<T>(a1.y), b1, acc[11]);
            acc[12] = fma(vec4<T>(a1.z), b0, acc[12]);
            acc[13] = fma(vec4<T>(a1.z), b1, acc[13]);
            acc[14] = fma(vec4<T>(a1.w), b0, acc[14]);
            acc[15] = fma(vec4<T>(a1.w), b1, acc[15]);
        }
        if more {
            buf ^= WIDE_BUFFER;
            wide_stage_a(buf, next_a, a_i, a_k, a_along_k);
            wide_stage_b(buf, next_b, b_i, b_k, b_along_k);
        }
        workgroupBarrier();
    }

    let r0 = row0 + ty * 4u;
    let r1 = r0 + 64u;
    let c0 = col0 + tx * 4u;
    let c1 = c0 + 64u;
    wide_store_c(batch, r0, c0, acc[0]);
    wide_store_c(batch, r0, c1, acc[1]);
    wide_store_c(batch, r0 + 1u, c0, acc[2]);
    wide_store_c(batch, r0 + 1u, c1, acc[3]);
    wide_store_c(batch, r0 + 2u, c0, acc[4]);
    wide_store_c(batch, r0 + 2u, c1, acc[5]);
    wide_store_c(batch, r0 + 3u, c0, acc[6]);
    wide_store_c(batch, r0 + 3u, c1, acc[7]);
    wide_store_c(batch, r1, c0, acc[8]);
    wide_store_c(batch, r1, c1, acc[9]);
    wide_store_c(batch, r1 + 1u, c0, acc[10]);
    wide_store_c(batch, r1 + 1u, c1, acc[11]);
    wide_store_c(batch, r1 + 2u, c0, acc[12]);
    wide_store_c(batch, r1 + 2u, c1, acc[13]);
    wide_store_c(batch, r1 + 3u, c0, acc[14]);
    wide_store_c(batch, r1 + 3u, c1, acc[15]);
}
