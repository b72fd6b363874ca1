//! BCF export (BIM Collaboration Format, buildingSMART; issue 11): one topic per clash, with
//! its title, status, assignee, comment, a viewpoint (an orthographic camera that shows the
//! clash, the two components selected and the others hidden, clipping planes around the
//! clash) and a PNG snapshot. BCF 3.0 by default, 2.1 on request. The files follow the
//! schemas of github.com/buildingSMART/BCF-XML (tests validate against them and read the
//! archive with an independent reader).

use std::fmt::Write as _;
use std::io::Write as _;

use glam::DVec3;

use super::snapshot::{Image, OrthoCamera};
use super::{clash_guid, Status};

/// Which BCF version to write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BcfVersion {
    /// BCF 3.0 (default).
    #[default]
    V3,
    /// BCF 2.1.
    V21,
}

impl std::str::FromStr for BcfVersion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "3" | "3.0" => Ok(BcfVersion::V3),
            "2.1" => Ok(BcfVersion::V21),
            _ => Err(format!("unknown BCF version '{s}': use 3.0 or 2.1")),
        }
    }
}

/// A component of a viewpoint: one object.
#[derive(Debug, Clone, PartialEq)]
pub struct Component {
    /// Its name (BCF `AuthoringToolId`): the object's path in the scene.
    pub name: String,
    /// Its IFC GlobalId (BCF `IfcGuid`), when it has one (22 characters).
    pub ifc_guid: Option<String>,
}

/// One clash as a BCF topic.
#[derive(Debug, Clone, PartialEq)]
pub struct Topic {
    /// The clash id ([`super::clash_id`]); topic and viewpoint GUIDs derive from it.
    pub clash_id: String,
    /// Title (`a ↔ b: volume 12.3 mm³`).
    pub title: String,
    /// Longer text: class, numbers, where.
    pub description: String,
    /// Review status.
    pub status: Status,
    /// Who looks after it.
    pub assignee: Option<String>,
    /// The planner's comment.
    pub comment: Option<String>,
    /// The two components.
    pub components: [Component; 2],
    /// The camera that shows the clash.
    pub camera: OrthoCamera,
    /// The box that isolates the clash (six clipping planes).
    pub clip: [DVec3; 2],
    /// A picture of the clash from the camera.
    pub snapshot: Option<Image>,
}

/// Who and when, for every topic.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Author (`CreationAuthor`).
    pub author: String,
    /// ISO 8601 date ([`super::iso8601_utc`]).
    pub date: String,
}

/// Why a BCF file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum BcfError {
    /// The zip archive.
    #[error("cannot write the BCF archive: {0}")]
    Zip(#[from] zip::result::ZipError),
    /// Writing bytes.
    #[error("cannot write the BCF archive: {0}")]
    Io(#[from] std::io::Error),
    /// PNG encoding.
    #[error("cannot encode a BCF snapshot: {0}")]
    Png(#[from] png::EncodingError),
}

/// The BCF status name of a clash status.
pub fn topic_status(s: Status) -> &'static str {
    match s {
        Status::New => "New",
        Status::Active => "Active",
        Status::Reviewed => "Reviewed",
        Status::Approved => "Approved",
        Status::Resolved => "Resolved",
    }
}

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            // Characters XML 1.0 does not allow.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

/// Whether `s` is an IFC GlobalId (22 characters of IFC's base 64).
fn is_ifc_guid(s: &str) -> bool {
    s.len() == 22
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// Encode an image as PNG.
pub fn png_bytes(image: &Image) -> Result<Vec<u8>, BcfError> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, image.width, image.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header()?;
        w.write_image_data(&image.rgba)?;
    }
    Ok(out)
}

fn xyz(out: &mut String, tag: &str, p: DVec3) {
    let _ = write!(
        out,
        "<{tag}><X>{}</X><Y>{}</Y><Z>{}</Z></{tag}>",
        p.x, p.y, p.z
    );
}

fn component(out: &mut String, c: &Component) {
    match c.ifc_guid.as_deref().filter(|g| is_ifc_guid(g)) {
        Some(g) => {
            let _ = write!(out, "<Component IfcGuid=\"{}\">", esc(g));
        }
        None => out.push_str("<Component>"),
    }
    let _ = write!(
        out,
        "<OriginatingSystem>ldiclash</OriginatingSystem><AuthoringToolId>{}</AuthoringToolId></Component>",
        esc(&c.name)
    );
}

/// The viewpoint file (`viewpoint.bcfv`) of a topic.
fn visinfo(t: &Topic, guid: &str, v: BcfVersion) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = write!(s, "<VisualizationInfo Guid=\"{guid}\"><Components>");
    let hints =
        "<ViewSetupHints SpacesVisible=\"false\" SpaceBoundariesVisible=\"false\" OpeningsVisible=\"false\"/>";
    if v == BcfVersion::V21 {
        s.push_str(hints);
    }
    s.push_str("<Selection>");
    for c in &t.components {
        component(&mut s, c);
    }
    s.push_str("</Selection><Visibility DefaultVisibility=\"false\">");
    if v == BcfVersion::V3 {
        s.push_str(hints);
    }
    s.push_str("<Exceptions>");
    for c in &t.components {
        component(&mut s, c);
    }
    s.push_str("</Exceptions></Visibility></Components><OrthogonalCamera>");
    let c = &t.camera;
    xyz(&mut s, "CameraViewPoint", c.point);
    xyz(&mut s, "CameraDirection", c.direction);
    xyz(&mut s, "CameraUpVector", c.up);
    let _ = write!(
        s,
        "<ViewToWorldScale>{}</ViewToWorldScale>",
        c.view_to_world_scale
    );
    if v == BcfVersion::V3 {
        let _ = write!(s, "<AspectRatio>{}</AspectRatio>", c.aspect);
    }
    s.push_str("</OrthogonalCamera><ClippingPlanes>");
    // The direction points to the side that is cut away.
    let [lo, hi] = t.clip;
    for (axis, unit) in [DVec3::X, DVec3::Y, DVec3::Z].into_iter().enumerate() {
        for (at, dir) in [(lo, -unit), (hi, unit)] {
            let mut p = (lo + hi) * 0.5;
            p[axis] = at[axis];
            s.push_str("<ClippingPlane>");
            xyz(&mut s, "Location", p);
            xyz(&mut s, "Direction", dir);
            s.push_str("</ClippingPlane>");
        }
    }
    s.push_str("</ClippingPlanes></VisualizationInfo>\n");
    s
}

/// The markup file (`markup.bcf`) of a topic.
fn markup(t: &Topic, h: &Header, v: BcfVersion, snapshot: bool) -> String {
    let topic = clash_guid(&t.clash_id, "topic");
    let viewpoint = clash_guid(&t.clash_id, "viewpoint");
    let comment_guid = clash_guid(&t.clash_id, "comment");
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Markup>");
    let _ = write!(
        s,
        "<Topic Guid=\"{topic}\" TopicType=\"Clash\" TopicStatus=\"{}\">",
        topic_status(t.status)
    );
    let _ = write!(s, "<Title>{}</Title>", esc(&t.title));
    let _ = write!(
        s,
        "<Labels>{}</Labels>",
        if v == BcfVersion::V3 {
            "<Label>ldiclash</Label>"
        } else {
            "ldiclash"
        }
    );
    let _ = write!(
        s,
        "<CreationDate>{}</CreationDate><CreationAuthor>{}</CreationAuthor>",
        esc(&h.date),
        esc(&h.author)
    );
    if let Some(a) = &t.assignee {
        let _ = write!(s, "<AssignedTo>{}</AssignedTo>", esc(a));
    }
    let _ = write!(s, "<Description>{}</Description>", esc(&t.description));
    let comment = t.comment.as_deref().map(|c| {
        format!(
            "<Comment Guid=\"{comment_guid}\"><Date>{}</Date><Author>{}</Author><Comment>{}</Comment><Viewpoint Guid=\"{viewpoint}\"/></Comment>",
            esc(&h.date),
            esc(t.assignee.as_deref().unwrap_or(&h.author)),
            esc(c)
        )
    });
    let snap = if snapshot {
        "<Snapshot>snapshot.png</Snapshot>"
    } else {
        ""
    };
    match v {
        BcfVersion::V3 => {
            if let Some(c) = &comment {
                let _ = write!(s, "<Comments>{c}</Comments>");
            }
            let _ = write!(
                s,
                "<Viewpoints><ViewPoint Guid=\"{viewpoint}\"><Viewpoint>viewpoint.bcfv</Viewpoint>{snap}</ViewPoint></Viewpoints></Topic>"
            );
        }
        BcfVersion::V21 => {
            s.push_str("</Topic>");
            if let Some(c) = &comment {
                s.push_str(c);
            }
            let _ = write!(
                s,
                "<Viewpoints Guid=\"{viewpoint}\"><Viewpoint>viewpoint.bcfv</Viewpoint>{snap}</Viewpoints>"
            );
        }
    }
    s.push_str("</Markup>\n");
    s
}

/// `extensions.xml` (BCF 3.0): the topic type and statuses used, and the assignees.
fn extensions(topics: &[Topic]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Extensions><TopicTypes><TopicType>Clash</TopicType></TopicTypes><TopicStatuses>",
    );
    for st in [
        Status::New,
        Status::Active,
        Status::Reviewed,
        Status::Approved,
        Status::Resolved,
    ] {
        let _ = write!(s, "<TopicStatus>{}</TopicStatus>", topic_status(st));
    }
    s.push_str("</TopicStatuses><TopicLabels><TopicLabel>ldiclash</TopicLabel></TopicLabels>");
    let mut users: Vec<&str> = topics
        .iter()
        .filter_map(|t| t.assignee.as_deref())
        .collect();
    users.sort_unstable();
    users.dedup();
    if !users.is_empty() {
        s.push_str("<Users>");
        for u in users {
            let _ = write!(s, "<User>{}</User>", esc(u));
        }
        s.push_str("</Users>");
    }
    s.push_str("</Extensions>\n");
    s
}

/// Write `topics` as a `.bcfzip`.
pub fn write(topics: &[Topic], header: &Header, version: BcfVersion) -> Result<Vec<u8>, BcfError> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("bcf.version", opts)?;
    zip.write_all(match version {
        BcfVersion::V3 => b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Version VersionId=\"3.0\"/>\n" as &[u8],
        BcfVersion::V21 => b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Version VersionId=\"2.1\"><DetailedVersion>2.1</DetailedVersion></Version>\n",
    })?;
    if version == BcfVersion::V3 {
        zip.start_file("extensions.xml", opts)?;
        zip.write_all(extensions(topics).as_bytes())?;
    }
    for t in topics {
        let dir = clash_guid(&t.clash_id, "topic");
        let png = t.snapshot.as_ref().map(png_bytes).transpose()?;
        zip.start_file(format!("{dir}/markup.bcf"), opts)?;
        zip.write_all(markup(t, header, version, png.is_some()).as_bytes())?;
        zip.start_file(format!("{dir}/viewpoint.bcfv"), opts)?;
        zip.write_all(visinfo(t, &clash_guid(&t.clash_id, "viewpoint"), version).as_bytes())?;
        if let Some(png) = png {
            zip.start_file(format!("{dir}/snapshot.png"), stored)?;
            zip.write_all(&png)?;
        }
    }
    Ok(zip.finish()?.into_inner())
}

/// What a topic's title and description say of a pair.
fn describe(p: &crate::report::PairReport, unit: &str) -> (String, String) {
    let u = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    let mut numbers = Vec::new();
    if let Some(v) = p.volume {
        numbers.push(format!("volume {v:.4}{u}³"));
    }
    if let Some(s) = p.separation {
        numbers.push(format!("separation {s:.4}{u}"));
    } else if let Some(d) = p.depth {
        numbers.push(format!("depth {d:.4}{u}"));
    }
    if let Some(d) = p.distance {
        numbers.push(format!("distance {d:.4}{u}"));
    }
    let title = format!("{} ↔ {}: {}", p.a, p.b, p.kind.name());
    let mut description = format!("{} clash between {} and {}", p.kind.name(), p.a, p.b);
    if !numbers.is_empty() {
        let _ = write!(description, ": {}", numbers.join(", "));
    }
    if let Some([lo, hi]) = p.overlap_box {
        let _ = write!(
            description,
            "; around ({:.3}, {:.3}, {:.3})–({:.3}, {:.3}, {:.3})",
            lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]
        );
    }
    let _ = write!(
        description,
        ". Clash id {}.",
        p.id.clone().unwrap_or_else(|| super::pair_id(p))
    );
    (title, description)
}

/// The topics of a report's clashes (its pairs, then the resolved clashes of its baseline
/// whose objects are still in the scene), each with a camera, clipping box and, when
/// `snapshot_resolution > 0`, a snapshot drawn by [`super::snapshot::render`].
pub fn topics(
    scene: &crate::scene::Scene,
    report: &crate::report::Report,
    snapshot_resolution: u32,
) -> Result<Vec<Topic>, crate::check::CheckError> {
    use crate::ldi::Region;
    let index = |name: &str| scene.objects.iter().position(|o| o.name == name);
    let unit = report.scene_units.clone().unwrap_or_default();
    let component = |k: usize| {
        let o = &scene.objects[k];
        Component {
            name: super::object_key(&o.name, o.group.as_deref(), None),
            ifc_guid: o.id.clone(),
        }
    };
    let mut out = Vec::new();
    let mut add = |a: usize,
                   b: usize,
                   overlap: Option<Region>,
                   id: String,
                   title: String,
                   description: String,
                   status: Status,
                   assignee: Option<String>,
                   comment: Option<String>|
     -> Result<(), crate::check::CheckError> {
        let Some(clip) = super::snapshot::clash_box(scene, a, b, overlap) else {
            return Ok(());
        };
        // No snapshot asked for: the camera alone, nothing drawn.
        let (image, camera) = if snapshot_resolution > 0 {
            let (image, camera) = super::snapshot::render(scene, a, b, &clip, snapshot_resolution)?;
            (Some(image), camera)
        } else {
            (None, super::snapshot::camera(&clip, 16)?)
        };
        out.push(Topic {
            clash_id: id,
            title,
            description,
            status,
            assignee,
            comment,
            components: [component(a), component(b)],
            camera,
            clip: [clip.min.as_dvec3(), clip.max.as_dvec3()],
            snapshot: image,
        });
        Ok(())
    };
    for p in &report.pairs {
        let (Some(a), Some(b)) = (index(&p.a), index(&p.b)) else {
            continue;
        };
        let overlap = p
            .overlap_box
            .map(|[lo, hi]| Region::new(glam::Vec3::from_array(lo), glam::Vec3::from_array(hi)));
        let (title, description) = describe(p, &unit);
        add(
            a,
            b,
            overlap,
            p.id.clone().unwrap_or_else(|| super::pair_id(p)),
            title,
            description,
            p.status.unwrap_or_default(),
            p.assignee.clone(),
            p.comment.clone(),
        )?;
    }
    for c in &report.resolved {
        let (Some(a), Some(b)) = (index(&c.a), index(&c.b)) else {
            continue;
        };
        let kind = c.kind.map_or("clash", |k| k.name());
        add(
            a,
            b,
            None,
            c.id.clone(),
            format!("{} ↔ {}: {kind}", c.a, c.b),
            format!(
                "{kind} clash between {} and {}: no longer found. Clash id {}.",
                c.a, c.b, c.id
            ),
            Status::Resolved,
            c.assignee.clone(),
            c.comment.clone(),
        )?;
    }
    Ok(out)
}
