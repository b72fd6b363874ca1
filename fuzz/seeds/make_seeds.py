#!/usr/bin/env python3
"""Writes the tiny seed inputs under fuzz/seeds/<target>/ (a unit cube per format, plus a
few variants, and inputs for the scene.json and widget targets). Run from anywhere:
python3 fuzz/seeds/make_seeds.py [TARGET...]   (default: every target; the 3MF zips carry the
time they were written, so name the targets you mean to refresh)"""
import base64, io, json, os, struct, sys, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
C = [((i & 1), (i >> 1) & 1, (i >> 2) & 1) for i in range(8)]
Q = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
T = [t for q in Q for t in ((q[0], q[1], q[2]), (q[0], q[2], q[3]))]


def write(target, name, data):
    os.makedirs(os.path.join(HERE, target), exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(HERE, target, name), "wb") as f:
        f.write(data)


def stl_binary(header=b"cube"):
    b = header.ljust(80, b" ") + struct.pack("<I", len(T))
    for t in T:
        b += struct.pack("<3f", 0, 0, 0)
        for i in t:
            b += struct.pack("<3f", *C[i])
        b += b"\0\0"
    return b


def stl_ascii():
    s = "solid cube\n"
    for t in T:
        s += "facet normal 0 0 0\nouter loop\n"
        s += "".join("vertex %g %g %g\n" % C[i] for i in t)
        s += "endloop\nendfacet\n"
    return s + "endsolid cube\n"


def obj():
    s = "mtllib m.mtl\no cube\n" + "".join("v %g %g %g\n" % c for c in C) + "vt 0 0\nvn 0 0 1\n"
    s += "".join("f %d/1/1 %d//1 %d %d\n" % tuple(i + 1 for i in q) for q in Q[:3])
    s += "g rest\n" + "".join("f -%d -%d -%d -%d\n" % tuple(8 - i for i in q) for q in Q[3:])
    return s + "l 1 2 3\np 1\n"


def ply_ascii():
    s = ("ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
         "property float z\nelement face 6\nproperty list uchar int vertex_indices\nend_header\n")
    s += "".join("%g %g %g\n" % c for c in C)
    return s + "".join("4 %d %d %d %d\n" % q for q in Q)


def ply_binary(endian):
    order = "<" if endian == "little" else ">"
    b = ("ply\nformat binary_%s_endian 1.0\nelement vertex 8\nproperty double x\n"
         "property double y\nproperty double z\nelement face 6\n"
         "property list uchar ushort vertex_index\nend_header\n" % endian).encode()
    for c in C:
        b += struct.pack(order + "3d", *c)
    for q in Q:
        b += struct.pack(order + "B4H", 4, *q)
    return b


def off(header="OFF\n8 6 12\n", color=""):
    return header + "".join("%g %g %g%s\n" % (c + (color,)) for c in C) + \
        "".join("4 %d %d %d %d\n" % q for q in Q)


def gltf_parts(uri, nodes='[{"mesh":0}]'):
    buf = b"".join(struct.pack("<3f", *c) for c in C) + b"".join(struct.pack("<3H", *t) for t in T)
    doc = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": json.loads(nodes),
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [dict({"byteLength": len(buf)}, **({"uri": uri(buf)} if uri else {}))],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 96},
                        {"buffer": 0, "byteOffset": 96, "byteLength": 72}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 1, 1]},
                      {"bufferView": 1, "componentType": 5123, "count": 36, "type": "SCALAR"}],
    }
    return json.dumps(doc, separators=(",", ":")), buf


def gltf(nodes='[{"mesh":0}]'):
    return gltf_parts(lambda b: "data:application/octet-stream;base64," +
                      base64.b64encode(b).decode(), nodes)[0]


def glb():
    j, buf = gltf_parts(None)
    j = j.encode()
    j += b" " * (-len(j) % 4)
    buf += b"\0" * (-len(buf) % 4)
    total = 12 + 8 + len(j) + 8 + len(buf)
    return (b"glTF" + struct.pack("<II", 2, total) + struct.pack("<I", len(j)) + b"JSON" + j +
            struct.pack("<I", len(buf)) + b"BIN\0" + buf)


def threemf(compression, transform=""):
    model = ('<?xml version="1.0" encoding="UTF-8"?>\n<model unit="millimeter" '
             'xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"><resources>'
             '<object id="1" type="model"><mesh><vertices>' +
             "".join('<vertex x="%g" y="%g" z="%g"/>' % c for c in C) +
             "</vertices><triangles>" +
             "".join('<triangle v1="%d" v2="%d" v3="%d"/>' % t for t in T) +
             '</triangles></mesh></object><object id="2" type="model"><components>'
             '<component objectid="1"%s/></components></object></resources>'
             '<build><item objectid="2"/></build></model>' % transform)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        z.writestr("3D/3dmodel.model", model)
    return out.getvalue()


def scene(objects):
    return json.dumps({"objects": objects}, indent=1)


M16 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5, 0.25, 0, 1]
MIRROR = [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
REPORT = {
    "objects": [{"name": "a", "triangles": 12, "closed": True, "units": "unknown", "volume": 1.0},
                {"name": "b", "triangles": 12, "closed": True, "units": "unknown", "volume": 1.0}],
    "pairs": [{"a": "a", "b": "b", "kind": "volume", "volume": 0.5, "depth": 0.5, "pixels": 100,
               "pixel_size": 0.01, "epsilon": 0.01, "axes": ["x"],
               "overlap_box": [[0.5, 0, 0], [1, 1, 1]], "triangle_pairs": None}],
    "self": [], "timings_ms": {"total": 1.0}, "version": "0.1.0", "mode": "auto",
    "backend": "cpu", "resolution": 64, "axes": "auto", "warnings": [],
    "stats": {"candidate_pairs": 1, "ldis": 1, "fragments": 400, "max_ldi_pixels": 4096,
              "exact_tests": 0},
}


def widget(which, payload):
    return bytes([which]) + (payload.encode() if isinstance(payload, str) else payload)


SEEDS = [
    ("fuzz_stl", "cube_binary.stl", stl_binary()),
    ("fuzz_stl", "cube_solid_header.stl", stl_binary(b"solid but binary")),
    ("fuzz_stl", "cube_ascii.stl", stl_ascii()),
    ("fuzz_obj", "cube.obj", obj()),
    ("fuzz_ply", "cube_ascii.ply", ply_ascii()),
    ("fuzz_ply", "cube_le.ply", ply_binary("little")),
    ("fuzz_ply", "cube_be.ply", ply_binary("big")),
    ("fuzz_off", "cube.off", off()),
    ("fuzz_off", "cube_coff.off", off("COFF 8 6 0\n", " 255 0 0 255")),
    ("fuzz_gltf", "cube.gltf", gltf()),
    ("fuzz_gltf", "cube_nodes.gltf",
      gltf('[{"children":[1],"scale":[2,2,-2]},{"mesh":0,"translation":[1,0,0]}]')),
    ("fuzz_glb", "cube.glb", glb()),
    ("fuzz_3mf", "cube_stored.3mf", threemf(zipfile.ZIP_STORED, ' transform="1 0 0 0 1 0 0 0 1 5 0 0"')),
    ("fuzz_3mf", "cube_deflated.3mf", threemf(zipfile.ZIP_DEFLATED)),
    # scene.json: the file, then NUL and the bytes of every file not named *.stl.
    ("fuzz_scene_json", "two_cubes.json", scene([{"name": "a", "file": "m/a.stl"},
                                                 {"name": "b", "file": "a.stl", "world_from_object": M16}])),
    ("fuzz_scene_json", "mirror_and_obj.json", scene([{"name": "a", "file": "a.stl", "world_from_object": MIRROR},
                                                      {"name": "o", "file": "cube.obj"}]).encode() + b"\0" + obj().encode()),
    ("fuzz_scene_json", "shared_file.json", scene([{"name": "p", "file": "c.off"}, {"name": "q", "file": "c.off", "world_from_object": M16}]).encode() + b"\0" + off().encode()),
    # The widget's entry points: a selector byte, then the text (fuzz/src/lib.rs, widget_json).
    ("fuzz_widget_json", "settings.bin", widget(0, '{"mode": "cullide", "resolution": 64, "epsilon": 0.01, "axes": "x,z", "self_check": false}')),
    ("fuzz_widget_json", "display.bin", widget(1, '{"xray": true, "boxes": false, "ldi": "layers", "ldi_resolution": 96}')),
    ("fuzz_widget_json", "report.bin", widget(2, json.dumps(REPORT))),
    ("fuzz_widget_json", "transform.bin", widget(3, b"\0" + struct.pack("<16d", *M16))),
    ("fuzz_widget_json", "mirror.bin", widget(3, b"\1" + struct.pack("<16d", *MIRROR))),
    ("fuzz_widget_json", "names.bin", widget(4, struct.pack("<f", 0.5) + b"twist")),
    # load(files): scene.json, a.stl, b.obj, c.ply, d.off, e.gltf, f.glb, g.3mf, cut at NUL LF.
    ("fuzz_widget_load", "scene_and_meshes.bin", b"\0\n".join([
        scene([{"name": "x", "file": "a.stl"}, {"name": "y", "file": "meshes/b.obj", "world_from_object": M16}]).encode(),
        stl_ascii().encode(), obj().encode(), ply_ascii().encode(), off().encode()])),
    ("fuzz_widget_load", "meshes_only.bin", b"\0\n".join([b"", stl_binary(), obj().encode(), b"", b"",
                                                             gltf().encode(), glb()])),
]


def check_input(setup, meshes, objects, options, moves, extras=None):
    """fuzz_check's bytes (ldiclash_fuzz::check_geometry): the setup byte, each mesh's bytes,
    each object's mesh index and placement, the options byte (with bit 0x80 when `extras`, the
    byte choosing a contact tolerance and a clearance, follows), the moves."""
    out = bytes([setup]) + b"".join(meshes)
    for mesh, place in objects:
        out += bytes([mesh]) + place
    if extras is None:
        out += bytes([options])
    else:
        out += bytes([options | 0x80, extras])
    out += bytes([len(moves) - 1 if moves else 0])
    for obj, place in moves:
        out += bytes([obj]) + place
    return out


def c(*v):
    """Coordinates in sixteenths (fuzz_check's grid), as signed bytes."""
    return bytes(x & 0xFF for x in v)


def place(flags=0, axis=(0, 0, 16), angle=0, t=(0, 0, 0)):
    return bytes([flags]) + c(*axis) + bytes([angle]) + c(*t)


SPHERE = bytes([1]) + c(0, 0, 0) + bytes([15, 10, 4])
BOX4 = bytes([0]) + c(-32, -32, -32) + c(32, 32, 32)
BOX1 = bytes([0]) + c(-8, -8, -8) + c(8, 8, 8)
CUBE = bytes([0]) + c(0, 0, 0) + c(16, 16, 16)
TORUS = bytes([3]) + c(0, 0, 0) + bytes([15, 5, 9, 5])
SHAFT = bytes([2]) + c(0, 0, 0) + c(-24) + bytes([3, 47, 9])
SOUP = bytes([4, 3]) + c(0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0, 16, 8, 8, 8, -8, 4, 2) + bytes([7]) + \
    bytes([0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 2, 4, 5, 1, 5, 4, 4, 2, 4, 5])
SEEDS += [
    ("fuzz_check", "spheres_overlapping.bin", check_input(
        0, [SPHERE], [(0, place()), (0, place(t=(16, 0, 0)))], 8,
        [(1, place(2, (0, 16, 0), 20, (8, 4, 0)))])),
    ("fuzz_check", "box_in_box.bin", check_input(
        1, [BOX4, BOX1], [(0, place()), (1, place(t=(4, 0, 0)))], 5, [(1, place(t=(40, 0, 0)))])),
    ("fuzz_check", "cubes_touching.bin", check_input(
        0, [CUBE], [(0, place()), (0, place(t=(16, 0, 0)))], 12, [(1, place(t=(16, 1, 0)))])),
    ("fuzz_check", "copies_of_a_pair.bin", check_input(
        10, [TORUS, SHAFT],
        [(0, place()), (1, place()), (0, place(1, (16, 0, 0), 0, (64, 0, 0))),
         (1, place(1, (16, 0, 0), 0, (64, 0, 0))), (0, place(0x80, t=(0, 64, 0)))], 42,
        [(2, place(1, (16, 0, 0), 0, (64, 2, 0))), (3, place(5, (0, 0, 16), 0, (60, 0, 0)))])),
    # Cubes 1/16 apart within a clearance of 1/4 (extras: clearance index 4, ε 1e-3), then
    # one moved 1/2 away, beyond it. A torus and a shaft through it (a volume pair) with ε 1/16
    # and a clearance of 1, the shaft moved out to within the clearance, the torus turned.
    ("fuzz_check", "cubes_within_clearance.bin", check_input(
        0, [CUBE], [(0, place()), (0, place(t=(17, 0, 0)))], 12, [(1, place(t=(24, 0, 0)))],
        extras=4 * 4 + 1)),
    ("fuzz_check", "torus_shaft_clearance.bin", check_input(
        1, [TORUS, SHAFT], [(0, place()), (1, place(t=(0, 3, 0)))], 1,
        [(1, place(t=(0, 40, 0))), (0, place(2, (16, 0, 0), 64, (0, 2, 0)))], extras=5 * 4 + 2)),
    ("fuzz_check", "soups.bin", check_input(
        0, [SOUP], [(0, place()), (0, place(2, (5, 3, 16), 77, (4, 2, 1)))], 3,
        [(0, place(8, t=(2, 2, 2)))])),
]


def gpu_input(setup, meshes, objects, options, how, extras=None, moves=()):
    """fuzz_gpu_check's bytes (ldiclash_fuzz::gpu_check_geometry): fuzz_check's scene and
    options, then the byte picking depth peeling (bit 0), the whole-region broad phase (bit 1)
    and a GPU checker (bit 2), whose moves follow as fuzz_check's."""
    out = check_input(setup, meshes, objects, options, [], extras)[:-1] + bytes([how])
    if how & 4:
        out += bytes([len(moves) - 1 if moves else 0])
        for obj, p in moves:
            out += bytes([obj]) + p
    return out


SEEDS += [
    ("fuzz_gpu_check", "spheres_overlapping.bin", gpu_input(
        0, [SPHERE], [(0, place()), (0, place(t=(16, 0, 0)))], 8, 0)),
    ("fuzz_gpu_check", "spheres_peeled.bin", gpu_input(
        0, [SPHERE], [(0, place()), (0, place(2, (0, 16, 0), 20, (8, 4, 0)))], 12, 1)),
    ("fuzz_gpu_check", "box_in_box_whole_regions.bin", gpu_input(
        1, [BOX4, BOX1], [(0, place()), (1, place(t=(4, 0, 0)))], 5, 2)),
    ("fuzz_gpu_check", "cubes_touching.bin", gpu_input(
        0, [CUBE], [(0, place()), (0, place(t=(16, 0, 0)))], 12, 0)),
    ("fuzz_gpu_check", "copies_of_a_pair.bin", gpu_input(
        10, [TORUS, SHAFT],
        [(0, place()), (1, place()), (0, place(1, (16, 0, 0), 0, (64, 0, 0))),
         (1, place(1, (16, 0, 0), 0, (64, 0, 0))), (0, place(0x80, t=(0, 64, 0)))], 42, 1)),
    ("fuzz_gpu_check", "torus_shaft_clearance.bin", gpu_input(
        1, [TORUS, SHAFT], [(0, place()), (1, place(t=(0, 3, 0)))], 1, 0, extras=5 * 4 + 2)),
    ("fuzz_gpu_check", "soups.bin", gpu_input(
        0, [SOUP], [(0, place()), (0, place(2, (5, 3, 16), 77, (4, 2, 1)))], 3, 0)),
    ("fuzz_gpu_check", "checker_moves.bin", gpu_input(
        1, [TORUS, SHAFT], [(0, place()), (1, place(t=(0, 3, 0)))], 9, 4,
        moves=[(1, place(t=(0, 40, 0))), (0, place(2, (16, 0, 0), 64, (0, 2, 0)))])),
]

wanted = set(sys.argv[1:])
for target, name, data in SEEDS:
    if not wanted or target in wanted:
        write(target, name, data)
