//! Which file system the job's data lived on: from a Darshan log's mount table, from `statfs`
//! magic numbers for paths that exist here, from well-known mount-point names otherwise, or
//! from the user (`--fs-type`). A strategy whose file-system type does not match is never
//! proposed.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

/// File-system types strategies are gated on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum FsType {
    /// Lustre.
    Lustre,
    /// IBM Storage Scale (GPFS).
    Gpfs,
    /// `BeeGFS`.
    Beegfs,
    /// NFS.
    Nfs,
    /// VAST (NFS over RDMA, with its own caching).
    Vast,
    /// DAOS (DFS or dfuse).
    Daos,
    /// XFS (local disks or node-local `NVMe`).
    Xfs,
    /// ext4.
    Ext4,
    /// tmpfs (`/dev/shm`, memory).
    Tmpfs,
    /// Anything else or unknown.
    Other,
}

impl FsType {
    /// The type named `name` (Darshan mount-table names, `statfs` names, common aliases).
    pub fn parse(name: &str) -> Option<FsType> {
        Some(match name.to_ascii_lowercase().as_str() {
            "lustre" => FsType::Lustre,
            "gpfs" | "spectrum-scale" | "mmfs" => FsType::Gpfs,
            "beegfs" | "fhgfs" => FsType::Beegfs,
            "nfs" | "nfs4" | "nfs3" => FsType::Nfs,
            "vast" => FsType::Vast,
            "daos" | "dfuse" | "fuse.daos" => FsType::Daos,
            "xfs" => FsType::Xfs,
            "ext4" | "ext3" => FsType::Ext4,
            "tmpfs" | "shm" => FsType::Tmpfs,
            "other" | "unknown" => FsType::Other,
            _ => return None,
        })
    }

    /// Name.
    pub fn name(self) -> &'static str {
        match self {
            FsType::Lustre => "lustre",
            FsType::Gpfs => "gpfs",
            FsType::Beegfs => "beegfs",
            FsType::Nfs => "nfs",
            FsType::Vast => "vast",
            FsType::Daos => "daos",
            FsType::Xfs => "xfs",
            FsType::Ext4 => "ext4",
            FsType::Tmpfs => "tmpfs",
            FsType::Other => "other",
        }
    }

    /// The type of a `statfs` magic number.
    pub fn from_magic(magic: u64) -> FsType {
        match magic {
            0x0BD0_0BD0 => FsType::Lustre,
            0x4750_4653 => FsType::Gpfs,
            0x1983_0326 => FsType::Beegfs,
            0x6969 => FsType::Nfs,
            0x5846_5342 => FsType::Xfs,
            0xEF53 => FsType::Ext4,
            0x0102_1994 => FsType::Tmpfs,
            _ => FsType::Other,
        }
    }

    /// A guess from a path's well-known mount-point names (`/lus/`, `/p/lustre`, `/gpfs/`, ...).
    pub fn from_path_name(path: &str) -> Option<FsType> {
        let lower = path.to_ascii_lowercase();
        let has = |part: &str| lower.contains(part);
        if has("/lus/") || has("/lustre") || lower.starts_with("/p/lustre") {
            Some(FsType::Lustre)
        } else if has("/gpfs") {
            Some(FsType::Gpfs)
        } else if has("/beegfs") {
            Some(FsType::Beegfs)
        } else if has("/vast") {
            Some(FsType::Vast)
        } else if has("/daos") || has("/dfuse") {
            Some(FsType::Daos)
        } else if lower.starts_with("/dev/shm") {
            Some(FsType::Tmpfs)
        } else {
            None
        }
    }
}

/// Paths of the operating system and its libraries, which say nothing about where the job's
/// data live (and exist on every machine, so `statfs` on them would judge this machine).
fn is_system_path(path: &str) -> bool {
    ["/usr/", "/lib", "/etc/", "/proc/", "/sys/", "/bin/", "/sbin/", "/run/", "/var/lib/", "/dev/"]
        .iter()
        .any(|prefix| path.starts_with(prefix))
        && !path.starts_with("/dev/shm")
}

/// Where the verdict came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Detection {
    /// The file system of most of the job's bytes (or files, when no bytes are known).
    pub fs_type: FsType,
    /// `user`, `darshan-mounts`, `statfs`, `path-name` or `none`.
    pub source: &'static str,
    /// Share of the weight on each type found.
    pub shares: BTreeMap<FsType, f64>,
}

/// The file system of a local file, from `statfs` (`None` when it is not a file here).
pub fn statfs_type(path: &Path) -> Option<FsType> {
    if !path.is_file() {
        return None;
    }
    rustix::fs::statfs(path).ok().map(|stat| FsType::from_magic(stat.f_type as u64))
}

/// Decides the file system from `(path, weight, fs type from a mount table)` triples: the user's
/// override wins; then mount tables; then `statfs` for the job's files that exist here as files
/// (a trace recorded on this machine; a directory such as `/tmp` exists everywhere and is not
/// evidence), then mount-point names. System paths (`/usr`, `/etc`, ...) are never evidence.
pub fn detect(files: &[(String, f64, Option<String>)], user: Option<FsType>) -> Detection {
    if let Some(fs_type) = user {
        return Detection { fs_type, source: "user", shares: BTreeMap::from([(fs_type, 1.0)]) };
    }
    let mut source = "none";
    let mut weights: BTreeMap<FsType, f64> = BTreeMap::new();
    let from_mounts: Vec<(FsType, f64)> = files
        .iter()
        .filter_map(|(_, weight, mounted)| mounted.as_deref().and_then(FsType::parse).map(|fs| (fs, *weight)))
        .collect();
    if from_mounts.is_empty() {
        for (path, weight, _) in files.iter().filter(|(path, _, _)| !is_system_path(path)) {
            let local = Path::new(path);
            let fs = if local.is_absolute() { statfs_type(local).map(|fs| (fs, "statfs")) } else { None };
            let fs = fs.or_else(|| FsType::from_path_name(path).map(|fs| (fs, "path-name")));
            if let Some((fs, how)) = fs {
                if source == "none" || how == "statfs" {
                    source = how;
                }
                *weights.entry(fs).or_default() += weight.max(1.0);
            }
        }
    } else {
        source = "darshan-mounts";
        for (fs, weight) in from_mounts {
            *weights.entry(fs).or_default() += weight.max(1.0);
        }
    }
    let total: f64 = weights.values().sum();
    let fs_type = weights.iter().max_by(|a, b| a.1.total_cmp(b.1)).map_or(FsType::Other, |(fs, _)| *fs);
    let shares = weights
        .into_iter()
        .map(|(fs, weight)| (fs, if total > 0.0 { weight / total } else { 0.0 }))
        .collect();
    Detection { fs_type, source, shares }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_magic_numbers_map_to_types() {
        assert_eq!(FsType::parse("lustre"), Some(FsType::Lustre));
        assert_eq!(FsType::parse("GPFS"), Some(FsType::Gpfs));
        assert_eq!(FsType::parse("zfs"), None);
        assert_eq!(FsType::from_magic(0x0BD0_0BD0), FsType::Lustre);
        assert_eq!(FsType::from_magic(0xEF53), FsType::Ext4);
        assert_eq!(FsType::from_path_name("/p/lustre/user/data/x.npz"), Some(FsType::Lustre));
        assert_eq!(FsType::from_path_name("/home/user/x"), None);
    }

    #[test]
    fn mount_tables_outweigh_names_and_the_user_outweighs_all() {
        let files = vec![
            ("/lus/grand/a".to_string(), 1e9, Some("lustre".to_string())),
            ("/home/b".to_string(), 1e3, Some("nfs".to_string())),
        ];
        let detection = detect(&files, None);
        assert_eq!((detection.fs_type, detection.source), (FsType::Lustre, "darshan-mounts"));
        assert_eq!(detect(&files, Some(FsType::Gpfs)).fs_type, FsType::Gpfs);
        let named = vec![("/p/lustre/x/data.npz".to_string(), 10.0, None)];
        assert_eq!(detect(&named, None).source, "path-name");
    }

    #[test]
    fn an_existing_local_path_is_judged_by_statfs() {
        let here = std::env::temp_dir().join("ioscout-fs-probe");
        let _ = std::fs::write(&here, b"x");
        let files = vec![(here.to_string_lossy().into_owned(), 1.0, None)];
        let detection = detect(&files, None);
        assert_eq!(detection.source, "statfs");
        let _ = std::fs::remove_file(&here);
    }
}
