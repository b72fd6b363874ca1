// STEP / IGES / BREP tessellation with occt-import-js (LGPL, ~7.6 MB of wasm), loaded only
// when such a file is dropped, in its own classic worker.
//
//   {id, name, buffer} -> {id, ok, stls: [ArrayBuffer] (a binary STL per solid)}
//                      -> {id, ok: false, error}
// Each solid becomes its own object; the STLs go through the same importer as any STL, so
// welding and validation are the same.

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

function toStl(meshes) {
  let triangles = 0;
  for (const m of meshes) triangles += m.index.array.length / 3;
  if (triangles === 0) throw new Error("the file has no surfaces to tessellate");
  const out = new ArrayBuffer(84 + 50 * triangles);
  const view = new DataView(out);
  view.setUint32(80, triangles, true);
  let at = 84;
  for (const m of meshes) {
    const p = m.attributes.position.array;
    const idx = m.index.array;
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
  }
  return out;
}

self.onmessage = async (event) => {
  const { id, name, buffer } = event.data;
  try {
    const lib = await load();
    const bytes = new Uint8Array(buffer);
    const ext = name.split(".").pop().toLowerCase();
    const result =
      ext === "igs" || ext === "iges"
        ? lib.ReadIgesFile(bytes, null)
        : ext === "brep"
          ? lib.ReadBrepFile(bytes, null)
          : lib.ReadStepFile(bytes, null);
    if (!result.success || result.meshes.length === 0) {
      throw new Error(`${name}: OpenCascade could not read it as ${ext.toUpperCase()}`);
    }
    const stls = result.meshes.map((m) => toStl([m]));
    self.postMessage({ id, ok: true, stls }, stls);
  } catch (err) {
    self.postMessage({ id, ok: false, error: String(err?.message ?? err) });
  }
};
