#!/usr/bin/env python3
"""Read a .bcfzip with independent tools and print what they saw as JSON.

1. Every XML file of the archive is validated against buildingSMART's own XSD schemas
   (tests/data/bcf/schemas, from github.com/buildingSMART/BCF-XML) with `xmlschema`.
2. The archive is opened with `bcf-client` (IfcOpenShell's BCF library, xsdata classes
   generated from the same schemas), and its topics, statuses, comments, viewpoints and
   snapshots are printed as it reads them.

Usage: read_bcf.py FILE.bcfzip SCHEMA_DIR  (exit 1 with the reason when anything fails)
"""

import json
import sys
import tempfile
import zipfile
from pathlib import Path

import xmlschema


def validate(path, schema_dir):
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        version_xml = z.read("bcf.version").decode()
        version = "3.0" if 'VersionId="3.0"' in version_xml else "2.1"
        schemas = Path(schema_dir) / version
        which = {
            "bcf.version": "version.xsd",
            "extensions.xml": "extensions.xsd",
            "project.bcfp": "project.xsd",
            "documents.xml": "documents.xsd",
        }
        checked = 0
        for name in names:
            base = name.rsplit("/", 1)[-1]
            xsd = which.get(name)
            if base.endswith(".bcf"):
                xsd = "markup.xsd"
            elif base.endswith(".bcfv"):
                xsd = "visinfo.xsd"
            if xsd is None:
                continue
            schema = xmlschema.XMLSchema(str(schemas / xsd))
            errors = list(schema.iter_errors(z.read(name).decode()))
            if errors:
                raise SystemExit(f"{name} does not follow {version}/{xsd}: {errors[0]}")
            checked += 1
        if version == "3.0" and "extensions.xml" not in names:
            raise SystemExit("BCF 3.0 archive without extensions.xml")
        return version, checked


def vec(p):
    return [p.x, p.y, p.z]


def read(path, version):
    if version == "3.0":
        from bcf.v3.bcfxml import BcfXml
    else:
        from bcf.v2.bcfxml import BcfXml
    bcf = BcfXml.load(Path(path))
    topics = []
    for guid, handler in bcf.topics.items():
        if version == "3.0":
            t = handler.topic
            comments = [c.comment for c in (t.comments.comment if t.comments else [])]
            labels = list(t.labels.label) if t.labels else []
        else:
            t = handler.topic
            comments = [c.comment for c in handler.comments]
            labels = list(t.labels)
        viewpoints = []
        for name, vp in handler.viewpoints.items():
            v = vp.visualization_info
            cam = v.orthogonal_camera
            comps = v.components
            selection = [
                c.authoring_tool_id for c in (comps.selection.component if comps and comps.selection else [])
            ]
            ifc = [c.ifc_guid for c in (comps.selection.component if comps and comps.selection else [])]
            planes = v.clipping_planes.clipping_plane if v.clipping_planes else []
            viewpoints.append(
                {
                    "file": name,
                    "camera_point": vec(cam.camera_view_point),
                    "camera_direction": vec(cam.camera_direction),
                    "camera_up": vec(cam.camera_up_vector),
                    "scale": cam.view_to_world_scale,
                    "selection": selection,
                    "ifc_guids": ifc,
                    "default_visibility": bool(comps.visibility.default_visibility) if comps and comps.visibility else None,
                    "clipping_planes": [
                        {"location": vec(p.location), "direction": vec(p.direction)} for p in planes
                    ],
                    "snapshot_png_bytes": len(vp.snapshot) if getattr(vp, "snapshot", None) else 0,
                }
            )
        topics.append(
            {
                "guid": guid,
                "title": t.title,
                "status": t.topic_status,
                "type": t.topic_type,
                "assigned_to": t.assigned_to,
                "description": t.description,
                "labels": labels,
                "comments": comments,
                "viewpoints": viewpoints,
            }
        )
    return topics


def main():
    path, schema_dir = sys.argv[1], sys.argv[2]
    version, checked = validate(path, schema_dir)
    topics = read(path, version)
    print(json.dumps({"version": version, "xml_files_validated": checked, "topics": topics}))


if __name__ == "__main__":
    main()
