#!/usr/bin/env python3
"""Writes the assembly and unit fixtures of this folder (issue 12), with the standard library
only: run `python3 tests/data/assemblies/make_fixtures.py` from the repository root.

- `cell.gltf`: a robot cell in metres: node `station_3` with `robot` (nodes `base`, `link_1`,
  `link_2`; `link_1` and `link_2` place one shared mesh) and `fixture`. `link_1` cuts 10 mm
  into `base` (a volume clash of 0.1 x 0.1 x 0.01 m = 1e-4 m^3 = 100 000 mm^3); `link_2` hangs
  above, clear; `fixture` stands apart.
- `jig.3mf`: a jig in millimetres: object `fixture` = a plate and two bolts (one mesh, two
  components) cutting 5 mm into the plate (10 x 10 x 5 = 500 mm^3 each), built twice (two build
  items, at x = 3000 mm: clear of the cell when both files are loaded).
- `mixed/fixture.gltf` (a 20 mm cube, written in metres) and `mixed/part.stl` (a 20 mm cube at
  x = 10 mm, millimetres, no unit in the file): converted to one unit they overlap by
  10 x 20 x 20 = 4000 mm^3; taken at their numbers they are 1000x apart.
"""

import base64
import json
import os
import struct
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

QUADS = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]]


def box(lo, hi):
    """Corners (bit 0: x, bit 1: y, bit 2: z) and outward counter-clockwise triangles."""
    pts = [[hi[k] if (i >> k) & 1 else lo[k] for k in range(3)] for i in range(8)]
    tris = [t for q in QUADS for t in ([q[0], q[1], q[2]], [q[0], q[2], q[3]])]
    return pts, tris


def gltf(meshes, nodes, roots):
    buf = bytearray()
    views, accessors, mesh_json = [], [], []
    for k, (pts, tris) in enumerate(meshes):
        at = len(buf)
        for p in pts:
            buf += struct.pack("<3f", *p)
        views.append({"buffer": 0, "byteOffset": at, "byteLength": len(buf) - at})
        accessors.append({
            "bufferView": 2 * k, "componentType": 5126, "count": len(pts), "type": "VEC3",
            "min": [min(p[i] for p in pts) for i in range(3)],
            "max": [max(p[i] for p in pts) for i in range(3)],
        })
        at = len(buf)
        for t in tris:
            buf += struct.pack("<3I", *t)
        views.append({"buffer": 0, "byteOffset": at, "byteLength": len(buf) - at})
        accessors.append({"bufferView": 2 * k + 1, "componentType": 5125, "count": 3 * len(tris), "type": "SCALAR"})
        mesh_json.append({"name": f"mesh{k}", "primitives": [{"attributes": {"POSITION": 2 * k}, "indices": 2 * k + 1}]})
    doc = {
        "asset": {"version": "2.0", "generator": "tests/data/assemblies/make_fixtures.py"},
        "scene": 0, "scenes": [{"nodes": roots}], "nodes": nodes, "meshes": mesh_json,
        "buffers": [{"uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(buf)).decode(), "byteLength": len(buf)}],
        "bufferViews": views, "accessors": accessors,
    }
    return json.dumps(doc, indent=1).encode()


def stl(pts, tris):
    out = bytearray(b"binary STL written by make_fixtures.py".ljust(80, b" "))
    out += struct.pack("<I", len(tris))
    for t in tris:
        out += struct.pack("<3f", 0, 0, 0)
        for i in t:
            out += struct.pack("<3f", *pts[i])
        out += b"\0\0"
    return bytes(out)


def threemf_mesh(pts, tris):
    v = "".join(f'<vertex x="{p[0]}" y="{p[1]}" z="{p[2]}"/>' for p in pts)
    t = "".join(f'<triangle v1="{a}" v2="{b}" v3="{c}"/>' for a, b, c in tris)
    return f"<mesh><vertices>{v}</vertices><triangles>{t}</triangles></mesh>"


def threemf(path):
    plate = box([0, 0, -10], [100, 100, 5])
    bolt = box([0, 0, 0], [10, 10, 40])
    model = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<model unit="millimeter" xml:lang="en-US" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">'
        "<resources>"
        f'<object id="1" type="model" name="plate">{threemf_mesh(*plate)}</object>'
        f'<object id="2" type="model" name="bolt">{threemf_mesh(*bolt)}</object>'
        '<object id="3" type="model" name="fixture"><components>'
        '<component objectid="1"/>'
        '<component objectid="2" transform="1 0 0 0 1 0 0 0 1 20 20 0"/>'
        '<component objectid="2" transform="1 0 0 0 1 0 0 0 1 70 70 0"/>'
        "</components></object>"
        "</resources><build>"
        '<item objectid="3" transform="1 0 0 0 1 0 0 0 1 3000 0 0"/>'
        '<item objectid="3" transform="1 0 0 0 1 0 0 0 1 3000 150 0"/>'
        "</build></model>"
    )
    content_types = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>'
    )
    rels = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>'
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in [("[Content_Types].xml", content_types), ("_rels/.rels", rels), ("3D/3dmodel.model", model)]:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)


def main():
    base = box([-0.2, -0.2, 0.0], [0.2, 0.2, 0.3])
    link = box([-0.05, -0.05, 0.0], [0.05, 0.05, 0.4])
    fixture = box([0.0, 0.0, 0.0], [0.3, 0.2, 0.5])
    nodes = [
        {"name": "station_3", "children": [1, 5]},
        {"name": "robot", "children": [2, 3, 4], "translation": [0.0, 0.0, 0.0]},
        {"name": "base", "mesh": 0},
        {"name": "link_1", "mesh": 1, "translation": [0.0, 0.0, 0.29]},
        {"name": "link_2", "mesh": 1, "translation": [0.0, 0.0, 0.75]},
        {"name": "fixture", "mesh": 2, "translation": [1.0, 0.0, 0.0]},
    ]
    with open(os.path.join(HERE, "cell.gltf"), "wb") as f:
        f.write(gltf([base, link, fixture], nodes, [0]))
    threemf(os.path.join(HERE, "jig.3mf"))
    os.makedirs(os.path.join(HERE, "mixed"), exist_ok=True)
    with open(os.path.join(HERE, "mixed", "fixture.gltf"), "wb") as f:
        f.write(gltf([box([0, 0, 0], [0.02, 0.02, 0.02])], [{"name": "fixture", "mesh": 0}], [0]))
    with open(os.path.join(HERE, "mixed", "part.stl"), "wb") as f:
        f.write(stl(*box([10, 0, 0], [30, 20, 20])))
    with open(os.path.join(HERE, "mixed", "scene.json"), "w") as f:
        json.dump({"objects": [{"name": "fixture", "file": "fixture.gltf"}, {"name": "part", "file": "part.stl"}]}, f, indent=1)


if __name__ == "__main__":
    main()
