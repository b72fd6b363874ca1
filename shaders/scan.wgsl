// shaders/scan.wgsl: exclusive prefix sum of the per-pixel counts → CSR offsets (seed 002 §3;
// issue 3 step 1), and the per-row totals used to plan tiles.
//
// How it works: `cs_main` scans blocks of 256 values in workgroup memory (Hillis–Steele) and
// writes each block's total to `sums`; the host scans `sums` the same way, level after level,
// until one block is left, then `cs_add` adds every block's offset back down. Scanning
// `len = pixels + 1` values with the missing last count read as 0 leaves the total in
// offsets[pixels]. `cs_rows` sums and maxes each tile row (u32, saturating at 2^32 - 1, which
// the host reports as too many fragments).

struct GpuScanParams {
    // Values to scan.
    len: u32,
    // Values present in `src` (those beyond read as 0).
    src_len: u32,
    // Row length for `cs_rows`.
    row_width: u32,
    // Rows for `cs_rows`.
    rows: u32,
}

@group(0) @binding(0) var<uniform> params: GpuScanParams;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read_write> sums: array<u32>;

const BLOCK: u32 = 256u;

var<workgroup> scratch: array<u32, 256>;

fn block_index(wg: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wg.y * nwg.x + wg.x;
}

@compute @workgroup_size(256)
fn cs_main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let block = block_index(wg, nwg);
    let i = block * BLOCK + li;
    var v = 0u;
    if i < params.src_len {
        v = src[i];
    }
    scratch[li] = v;
    workgroupBarrier();
    var step = 1u;
    loop {
        if step >= BLOCK {
            break;
        }
        var add = 0u;
        if li >= step {
            add = scratch[li - step];
        }
        workgroupBarrier();
        scratch[li] = scratch[li] + add;
        workgroupBarrier();
        step = step * 2u;
    }
    // scratch holds the inclusive scan; write the exclusive one.
    if i < params.len {
        dst[i] = scratch[li] - v;
    }
    if li == BLOCK - 1u && block * BLOCK < params.len {
        sums[block] = scratch[li];
    }
}

@compute @workgroup_size(256)
fn cs_add(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let block = block_index(wg, nwg);
    let i = block * BLOCK + li;
    if i < params.len {
        dst[i] = dst[i] + src[block];
    }
}

// Per row: x = sum (saturating), y = max. Written to dst as pairs.
@compute @workgroup_size(64)
fn cs_rows(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.x;
    if row >= params.rows {
        return;
    }
    var total = 0u;
    var most = 0u;
    for (var x = 0u; x < params.row_width; x = x + 1u) {
        let c = src[row * params.row_width + x];
        let t = total + c;
        total = select(t, 0xffffffffu, t < total);
        most = max(most, c);
    }
    dst[2u * row] = total;
    dst[2u * row + 1u] = most;
}
