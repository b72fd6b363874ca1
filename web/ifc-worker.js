// IFC import with web-ifc (That Open Company, MPL-2.0, ~1.6 MB of wasm), loaded only when an
// .ifc file is dropped, in its own classic worker (issue 12).
//
//   {id, name, buffer} -> {id, ok, files: [{name, buffer}]}   (a scene.json and its meshes)
//                      -> {id, ok: false, error}
//
// The files are a scene.json and binary STLs, named under the dropped file's name
// (`house.ifc/scene.json`, `house.ifc/geometry_53.stl`):
//   - one object per product with geometry (IfcSpace and IfcOpeningElement are left out: they
//     are volumes of air that every wall or piece of furniture would clash with), named
//     `<file>/<site>/<building>/<storey>/<Name>` (the product's Name, else its class and
//     express id; repeated names get `#2`, …), in the group of its spatial container —
//     grouped by storey —, with `id` its GlobalId and `kind` its IFC class (`IfcWall`); the
//     check report carries both;
//   - geometry as web-ifc tessellates it, in metres (the scene says `"units": "m"`, so the
//     page converts it like any file), turned back from web-ifc's Y-up to IFC's Z-up;
//   - a geometry placed by several products (a mapped representation) is one STL placed by
//     each (stored once); a product made of several geometries is one STL, merged.

let api = null;

async function load() {
  if (!api) {
    importScripts(new URL("./web-ifc-api-iife.js", self.location.href).href);
    // eslint-disable-next-line no-undef
    const ifc = new WebIFC.IfcAPI();
    await ifc.Init((path) => new URL(`./${path}`, self.location.href).href, true);
    api = ifc;
  }
  return api;
}

/** web-ifc's placements are Y-up: this turns them back to IFC's Z-up, (x, y, z) → (x, −z, y). */
const Z_UP = [1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1];

function mul(a, b) {
  const out = new Array(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return out;
}

function apply(m, x, y, z) {
  return [0, 1, 2].map((r) => m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r]);
}

/** A binary STL of triangles given as flat corner positions (9 numbers a triangle). */
function stl(corners) {
  const triangles = corners.length / 9;
  const out = new ArrayBuffer(84 + 50 * triangles);
  const view = new DataView(out);
  view.setUint32(80, triangles, true);
  let at = 84;
  for (let t = 0; t < corners.length; t += 9) {
    at += 12;
    for (let k = 0; k < 9; k++) {
      view.setFloat32(at, corners[t + k], true);
      at += 4;
    }
    at += 2;
  }
  return out;
}

/** Corner positions of one web-ifc geometry, placed by `m` (or as stored, for `null`). */
function corners(ifc, model, geometryId, m) {
  const geo = ifc.GetGeometry(model, geometryId);
  const v = ifc.GetVertexArray(geo.GetVertexData(), geo.GetVertexDataSize());
  const idx = ifc.GetIndexArray(geo.GetIndexData(), geo.GetIndexDataSize());
  const out = new Float64Array(idx.length * 3);
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k] * 6; // x y z nx ny nz
    const p = m ? apply(m, v[i], v[i + 1], v[i + 2]) : [v[i], v[i + 1], v[i + 2]];
    out.set(p, k * 3);
  }
  geo.delete?.();
  return out;
}

const SKIPPED = new Set(["IFCSPACE", "IFCOPENINGELEMENT"]);

async function sceneOf(ifc, model, name) {
  const stem = name.replace(/^.*[\\/]/, "").replace(/\.[^.]*$/, "") || "model";
  const clean = (n) => String(n ?? "").trim().replace(/\//g, "_");
  const text = (line, key) => clean(line?.[key]?.value);
  // Spatial structure: each element's container path (site / building / storey / space).
  const container = new Map();
  const tree = await ifc.properties.getSpatialStructure(model);
  const walk = (node, path) => {
    const line = ifc.GetLine(model, node.expressID);
    const isSpatial = node.children && node.children.length > 0 && /SITE|BUILDING|STOREY|SPACE|FACILITY|PART|ZONE/i.test(node.type);
    const here = node.type.toUpperCase() === "IFCPROJECT" ? path : isSpatial ? [...path, text(line, "Name") || `${node.type}_${node.expressID}`] : path;
    if (!isSpatial && node.type.toUpperCase() !== "IFCPROJECT") container.set(node.expressID, path);
    for (const c of node.children ?? []) walk(c, here);
  };
  walk(tree, []);
  const files = [];
  const geometryFile = new Map();
  const objects = [];
  const used = new Map();
  const unique = (path) => {
    const n = (used.get(path) ?? 0) + 1;
    used.set(path, n);
    return n > 1 ? `${path}#${n}` : path;
  };
  // Geometry data lives only while web-ifc streams its product: read it there.
  const meshes = [];
  const local = new Map();
  ifc.StreamAllMeshes(model, (mesh) => {
    const placed = [];
    for (let i = 0; i < mesh.geometries.size(); i++) {
      const g = mesh.geometries.get(i);
      placed.push({ geometry: g.geometryExpressID, m: mul(Z_UP, Array.from(g.flatTransformation)) });
    }
    if (placed.length === 1) {
      const g = placed[0].geometry;
      if (!local.has(g)) local.set(g, corners(ifc, model, g, null));
    } else {
      for (const p of placed) p.corners = corners(ifc, model, p.geometry, p.m);
    }
    meshes.push({ id: mesh.expressID, placed });
  });
  for (const { id, placed } of meshes) {
    if (placed.length === 0) continue;
    const line = ifc.GetLine(model, id);
    const type = ifc.GetNameFromTypeCode(ifc.GetLineType(model, id));
    if (SKIPPED.has(type.toUpperCase())) continue;
    const path = container.get(id) ?? [];
    const leaf = text(line, "Name") || `${type}_${id}`;
    const entry = {
      name: unique([stem, ...path, leaf].join("/")),
      group: [stem, ...path].join("/"),
      id: line?.GlobalId?.value ?? undefined,
      kind: type,
    };
    if (placed.length === 1) {
      // Stored once however many products place it.
      const g = placed[0].geometry;
      if (!geometryFile.has(g)) {
        const c = local.get(g);
        if (!c || c.length === 0) continue;
        const file = `${name}/geometry_${g}.stl`;
        files.push({ name: file, buffer: stl(c) });
        geometryFile.set(g, file);
      }
      entry.file = geometryFile.get(g);
      entry.world_from_object = placed[0].m;
    } else {
      const all = new Float64Array(placed.reduce((n, p) => n + p.corners.length, 0));
      let at = 0;
      for (const p of placed) {
        all.set(p.corners, at);
        at += p.corners.length;
      }
      if (all.length === 0) continue;
      entry.file = `${name}/product_${id}.stl`;
      files.push({ name: entry.file, buffer: stl(all) });
    }
    objects.push(entry);
  }
  if (objects.length === 0) throw new Error(`${name}: no product with geometry`);
  const json = new TextEncoder().encode(JSON.stringify({ units: "m", objects })).buffer;
  return [{ name: `${name}/scene.json`, buffer: json }, ...files];
}

self.onmessage = async (event) => {
  const { id, name, buffer } = event.data;
  try {
    const bytes = new Uint8Array(buffer);
    // An IFC file is STEP text with an IFC schema in its header: say so plainly rather than
    // hand web-ifc something else.
    const head = new TextDecoder("latin1").decode(bytes.subarray(0, 64 * 1024));
    if (!/^\s*ISO-10303-21\s*;/.test(head) || !/FILE_SCHEMA\s*\(\s*\(\s*'IFC/i.test(head)) {
      throw new Error(`${name}: not an IFC file (an IFC file starts with ISO-10303-21; and names an IFC schema in FILE_SCHEMA); export it as IFC2X3, IFC4 or IFC4X3`);
    }
    const ifc = await load();
    let files;
    try {
      const model = ifc.OpenModel(bytes, { COORDINATE_TO_ORIGIN: false });
      if (model < 0) throw new Error("it did not open");
      try {
        files = await sceneOf(ifc, model, name);
      } finally {
        ifc.CloseModel(model);
      }
    } catch (err) {
      const why = String(err?.message ?? err);
      throw new Error(why.startsWith(name) ? why : `${name}: web-ifc could not read it (${why})`);
    }
    self.postMessage({ id, ok: true, files }, files.map((f) => f.buffer));
  } catch (err) {
    self.postMessage({ id, ok: false, error: String(err?.message ?? err) });
  }
};
