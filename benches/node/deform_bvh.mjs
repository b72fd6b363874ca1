// three-mesh-bvh on the deforming mesh pairs of benches/deform.rs (issue 6), per frame:
//   refit:   copy the frame's positions, MeshBVH.refit() on both meshes, then
//            bvhA.intersectsGeometry(geometryB, identity) — BVH against BVH, since geometryB
//            has a boundsTree (three-mesh-bvh's `bvhcast`);
//   rebuild: new MeshBVH for both meshes and the same test.
// The meshes and every frame's positions come from the file written by
// `cargo bench --bench deform -- --export DIR` (benches/common/deform_meshes.rs), so both
// sides use identical geometry and motion. Frame 0 is a warm-up. Medians, milliseconds.
//
// Usage: node benches/node/deform_bvh.mjs DIR OUT.json   (scripts/bench-deform.sh runs it)

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as THREE from 'three';
import { MeshBVH } from 'three-mesh-bvh';

const [dir, out] = process.argv.slice(2);
if (!dir || !out) {
  console.error('usage: node benches/node/deform_bvh.mjs DIR OUT.json');
  process.exit(2);
}

function load(path) {
  const bytes = new Uint8Array(readFileSync(path));
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (magic !== 'LDIDEF01') throw new Error(`${path}: not an LDIDEF01 file`);
  const dv = new DataView(buf);
  let o = 8;
  const u32 = () => { const v = dv.getUint32(o, true); o += 4; return v; };
  const nMeshes = u32();
  const frames = u32();
  const meshes = [];
  for (let m = 0; m < nMeshes; m++) {
    const nv = u32();
    const nt = u32();
    const index = new Uint32Array(buf, o, 3 * nt).slice();
    o += 12 * nt;
    meshes.push({ nv, nt, index, frames: [] });
  }
  for (let f = 0; f < frames; f++) {
    for (const m of meshes) {
      m.frames.push(new Float32Array(buf, o, 3 * m.nv));
      o += 12 * m.nv;
    }
  }
  return { meshes, frames };
}

const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

function geometry(m) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(m.frames[0]), 3));
  g.setIndex(new THREE.BufferAttribute(new Uint32Array(m.index), 1));
  return g;
}

const identity = new THREE.Matrix4();
const results = { three: '0.9.17', node: process.version };
try {
  const pkg = JSON.parse(readFileSync(new URL('../../node_modules/three-mesh-bvh/package.json', import.meta.url)));
  results.three = pkg.version;
} catch { /* keep the default */ }

for (const label of ['100k', '1M']) {
  const { meshes, frames } = load(join(dir, `deform_${label}.bin`));
  const [ga, gb] = meshes.map(geometry);
  ga.boundsTree = new MeshBVH(ga);
  gb.boundsTree = new MeshBVH(gb);
  const refit = [];
  let intersects = false;
  for (let f = 0; f < frames; f++) {
    const t = performance.now();
    ga.attributes.position.array.set(meshes[0].frames[f]);
    gb.attributes.position.array.set(meshes[1].frames[f]);
    ga.attributes.position.needsUpdate = true;
    gb.attributes.position.needsUpdate = true;
    ga.boundsTree.refit();
    gb.boundsTree.refit();
    intersects = ga.boundsTree.intersectsGeometry(gb, identity);
    if (f > 0) refit.push(performance.now() - t);
  }
  const rebuild = [];
  for (let f = 0; f < frames; f++) {
    const t = performance.now();
    ga.attributes.position.array.set(meshes[0].frames[f]);
    gb.attributes.position.array.set(meshes[1].frames[f]);
    ga.boundsTree = new MeshBVH(ga);
    gb.boundsTree = new MeshBVH(gb);
    const hit = ga.boundsTree.intersectsGeometry(gb, identity);
    if (hit !== intersects && f > 0) throw new Error('refit and rebuild disagree');
    if (f > 0) rebuild.push(performance.now() - t);
  }
  results[label] = {
    triangles: meshes[0].nt + meshes[1].nt,
    frames: frames - 1,
    refit_ms: median(refit),
    rebuild_ms: median(rebuild),
    intersects,
  };
  console.error(`three-mesh-bvh ${label}: refit+test ${results[label].refit_ms.toFixed(1)} ms, rebuild+test ${results[label].rebuild_ms.toFixed(1)} ms, intersects ${intersects}`);
}
writeFileSync(out, JSON.stringify(results, null, 2));
