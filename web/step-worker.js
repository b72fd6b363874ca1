// STEP / IGES / BREP tessellation with occt-import-js (LGPL, ~7.6 MB of wasm), loaded only
// when such a file is dropped, in its own classic worker.
//
//   {id, name, buffer} -> {id, ok, files: [{name, buffer}]}   (a scene.json and its meshes)
//                      -> {id, ok: false, error}
//
// The files are a scene.json and a binary STL per solid, named under the dropped file's name
// (`box_and_pin.step/scene.json`, `box_and_pin.step/solid_1.stl`) so that two drops never
// share a name. The scene keeps what the STEP file says (issue 12):
//   - one object per solid, named after its product (OpenCascade's name for the mesh, else
//     the node's, else `solid_N`), in the group of its assembly path: `box_and_pin/fixture`;
//     names repeated under one group get `#2`, `#3`, …;
//   - the file's length unit (`LENGTH_UNIT … SI_UNIT(.MILLI.,.METRE.)`, inches, feet, …):
//     OpenCascade is asked for its output in that unit and the scene says so (`"units"`), so
//     the page converts it like any other file; IGES, BREP and files whose unit is not found
//     are read in millimetres (OpenCascade's default) and say so.
// The STLs go through the same importer as any STL, so welding and validation are the same.

let occt = null;

function load() {
  if (!occt) {
    importScripts(new URL("./occt-import-js.js", self.location.href).href);
    // eslint-disable-next-line no-undef
    occt = occtimportjs({
      locateFile: (file) => new URL(`./${file}`, self.location.href).href,
    });
  }
  return occt;
}

/** A binary STL of one occt mesh. */
function toStl(m) {
  const p = m.attributes.position.array;
  const idx = m.index.array;
  const triangles = idx.length / 3;
  const out = new ArrayBuffer(84 + 50 * triangles);
  const view = new DataView(out);
  view.setUint32(80, triangles, true);
  let at = 84;
  for (let t = 0; t < idx.length; t += 3) {
    at += 12; // normal: zero (the importer recomputes what it needs)
    for (let k = 0; k < 3; k++) {
      const v = idx[t + k] * 3;
      view.setFloat32(at, p[v], true);
      view.setFloat32(at + 4, p[v + 1], true);
      view.setFloat32(at + 8, p[v + 2], true);
      at += 12;
    }
    at += 2;
  }
  return out;
}

/** The length unit a STEP file declares: [occt's linearUnit, scene.json's unit] or null. */
function stepUnit(text) {
  const si = text.match(/LENGTH_UNIT\s*\(\s*\)\s*NAMED_UNIT\s*\(\s*\*\s*\)\s*SI_UNIT\s*\(\s*(\.\w+\.|\$)\s*,\s*\.METRE\.\s*\)/i)
    ?? text.match(/NAMED_UNIT\s*\(\s*\*\s*\)\s*LENGTH_UNIT\s*\(\s*\)\s*SI_UNIT\s*\(\s*(\.\w+\.|\$)\s*,\s*\.METRE\.\s*\)/i);
  if (si) {
    const prefix = si[1].replace(/\./g, "").toUpperCase();
    return { $: ["meter", "m"], MILLI: ["millimeter", "mm"], CENTI: ["centimeter", "cm"] }[prefix] ?? null;
  }
  const named = text.match(/CONVERSION_BASED_UNIT\s*\(\s*'(INCH|FOOT|MILLIMETRE|METRE)'/i);
  if (named) return { INCH: ["inch", "in"], FOOT: ["foot", "ft"], MILLIMETRE: ["millimeter", "mm"], METRE: ["meter", "m"] }[named[1].toUpperCase()];
  return null;
}

/** The scene.json and STLs of an occt result. */
function sceneOf(name, result, unit) {
  const stem = name.replace(/^.*[\\/]/, "").replace(/\.[^.]*$/, "") || "model";
  const clean = (n) => String(n ?? "").trim().replace(/\//g, "_");
  const files = [];
  const objects = [];
  const used = new Map();
  const unique = (path) => {
    const n = (used.get(path) ?? 0) + 1;
    used.set(path, n);
    return n > 1 ? `${path}#${n}` : path;
  };
  let solid = 0;
  const walk = (node, parents) => {
    const own = clean(node.name);
    const path = own ? [...parents, own] : parents;
    for (const m of node.meshes ?? []) {
      const mesh = result.meshes[m];
      if (!mesh || mesh.index.array.length === 0) continue;
      solid++;
      const leaf = clean(mesh.name) || (node.meshes.length === 1 && own) || `solid_${solid}`;
      // A part node's own name is the mesh's name: its group is its parents.
      const group = leaf === own ? parents : path;
      const file = `${name}/solid_${solid}.stl`;
      files.push({ name: file, buffer: toStl(mesh) });
      const full = unique([stem, ...group, leaf].join("/"));
      objects.push({ name: full, file, group: [stem, ...group].join("/") });
    }
    for (const c of node.children ?? []) walk(c, path);
  };
  walk(result.root ?? { meshes: result.meshes.map((_, i) => i) }, []);
  if (objects.length === 0) throw new Error(`${name}: the file has no surfaces to tessellate`);
  const scene = JSON.stringify({ units: unit, objects });
  const json = new TextEncoder().encode(scene).buffer;
  return [{ name: `${name}/scene.json`, buffer: json }, ...files];
}

self.onmessage = async (event) => {
  const { id, name, buffer } = event.data;
  try {
    const lib = await load();
    const bytes = new Uint8Array(buffer);
    const ext = name.split(".").pop().toLowerCase();
    const isStep = !(ext === "igs" || ext === "iges" || ext === "brep");
    // The unit is in the DATA section's first entities; 256 kB is plenty to find it.
    const declared = isStep ? stepUnit(new TextDecoder("latin1").decode(bytes.subarray(0, 256 * 1024))) : null;
    const [linearUnit, unit] = declared ?? ["millimeter", "mm"];
    const params = { linearUnit };
    const result =
      ext === "igs" || ext === "iges"
        ? lib.ReadIgesFile(bytes, params)
        : ext === "brep"
          ? lib.ReadBrepFile(bytes, params)
          : lib.ReadStepFile(bytes, params);
    if (!result.success || result.meshes.length === 0) {
      throw new Error(`${name}: OpenCascade could not read it as ${ext.toUpperCase()}`);
    }
    const files = sceneOf(name, result, unit);
    self.postMessage({ id, ok: true, files }, files.map((f) => f.buffer));
  } catch (err) {
    self.postMessage({ id, ok: false, error: String(err?.message ?? err) });
  }
};
