#!/usr/bin/env python3
"""Writes `small_building.ifc` (issue 12): a small IFC4 model made by a real IFC library,
IfcOpenShell 0.9.0.post1 from PyPI:

    python3 -m venv /tmp/ifc && /tmp/ifc/bin/pip install ifcopenshell==0.9.0.post1
    /tmp/ifc/bin/python tests/data/ifc/make_ifc.py

Project "ldiclash test" in millimetres; site, building "Building A", two storeys:

- "Level 0" (elevation 0): IfcWall "Wall A" (x 0..5000, y 0..200, z 0..3000), IfcColumn
  "Column C1" (x 1000..1300, y 100..400, z 0..3000: it cuts 300 x 100 x 3000 mm into the
  wall, the known clash: 9.0e7 mm^3 = 0.09 m^3), IfcSlab "Slab 1" under both with a 50 mm gap
  (x -500..5500, y -500..1500, z -250..-50: no clash);
- "Level 1" (elevation 3000): IfcWall "Wall B" (x 0..5000, y 1000..1200, z 3000..6000) and
  IfcBeam "Beam B1" (x 0..5000, y 500..700, z 5500..5800), both clear of everything.

GlobalIds are fixed (from UUIDs 00000000-0000-4000-8000-00000000000N) so the file is the same
on every run; the test checks them.
"""

import os
import uuid

import numpy as np
import ifcopenshell
import ifcopenshell.api
import ifcopenshell.guid

HERE = os.path.dirname(os.path.abspath(__file__))
counter = [0]


def fixed_guid():
    counter[0] += 1
    return ifcopenshell.guid.compress(uuid.UUID(f"00000000-0000-4000-8000-{counter[0]:012d}").hex)


def run(usecase, model=None, **kw):
    return ifcopenshell.api.run(usecase, model, **kw) if model is not None else ifcopenshell.api.run(usecase, **kw)


def entity(model, cls, name):
    e = run("root.create_entity", model, ifc_class=cls, name=name)
    e.GlobalId = fixed_guid()
    return e


def place(model, product, x, y, z):
    m = np.eye(4)
    m[:3, 3] = [x, y, z]
    run("geometry.edit_object_placement", model, product=product, matrix=m, is_si=False)


def box(model, body, product, length, width, height):
    """An extruded box of length (x) × width (y) × height (z) in mm from the placement."""
    rep = run("geometry.add_wall_representation", model, context=body, length=length / 1000, height=height / 1000, thickness=width / 1000)
    run("geometry.assign_representation", model, product=product, representation=rep)


def main():
    model = run("project.create_file", version="IFC4")
    project = entity(model, "IfcProject", "ldiclash test")
    run("unit.assign_unit", model, length={"is_metric": True, "raw": "MILLIMETERS"})
    ctx = run("context.add_context", model, context_type="Model")
    body = run("context.add_context", model, context_type="Model", context_identifier="Body", target_view="MODEL_VIEW", parent=ctx)
    site = entity(model, "IfcSite", "Site")
    building = entity(model, "IfcBuilding", "Building A")
    run("aggregate.assign_object", model, products=[site], relating_object=project)
    run("aggregate.assign_object", model, products=[building], relating_object=site)
    levels = []
    for name, elevation in [("Level 0", 0.0), ("Level 1", 3000.0)]:
        storey = entity(model, "IfcBuildingStorey", name)
        storey.Elevation = elevation
        place(model, storey, 0, 0, elevation)
        run("aggregate.assign_object", model, products=[storey], relating_object=building)
        levels.append(storey)
    products = [
        # class, name, storey, (x, y, z), (length x, width y, height z)
        ("IfcWall", "Wall A", 0, (0, 0, 0), (5000, 200, 3000)),
        ("IfcColumn", "Column C1", 0, (1000, 100, 0), (300, 300, 3000)),
        ("IfcSlab", "Slab 1", 0, (-500, -500, -250), (6000, 2000, 200)),
        ("IfcWall", "Wall B", 1, (0, 1000, 3000), (5000, 200, 3000)),
        ("IfcBeam", "Beam B1", 1, (0, 500, 5500), (5000, 200, 300)),
    ]
    for cls, name, level, (x, y, z), size in products:
        p = entity(model, cls, name)
        place(model, p, x, y, z)
        box(model, body, p, *size)
        run("spatial.assign_container", model, products=[p], relating_structure=levels[level])
    # Fixed GlobalIds for what the API created itself (relationships), and a fixed header, so
    # that the file is the same on every run.
    for e in sorted(model.by_type("IfcRoot"), key=lambda e: e.id()):
        if not e.GlobalId.startswith("00000000"):
            e.GlobalId = fixed_guid()
    model.header.file_name.name = "small_building.ifc"
    model.header.file_name.time_stamp = "2026-01-01T00:00:00+00:00"
    model.write(os.path.join(HERE, "small_building.ifc"))


if __name__ == "__main__":
    main()
