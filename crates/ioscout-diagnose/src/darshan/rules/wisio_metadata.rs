//! `WIS-METADATA` on Darshan counters: most POSIX time goes to metadata calls.

use crate::darshan::{DarshanContext, DarshanRule};
use crate::{Finding, RuleDoc, clip01, rule};
use ioscout_darshan::counters::{POSIX_F_META_TIME, POSIX_F_READ_TIME, POSIX_F_WRITE_TIME};

rule! {
    pub struct MetadataTime {
        code: "WIS-METADATA",
        family: Wisio,
        title: "Excessive metadata access: most POSIX time goes to open, close, stat and seek calls",
        detects: "POSIX_F_META_TIME against the POSIX read + write + metadata time, over all records (WisIO's metadata-access ratio, from Darshan counters).",
        why: "Metadata calls move no data and serialise on the metadata servers; when they take most of the I/O time the job is bound by them, not by bandwidth.",
        evidence: "metadata share of POSIX time, I/O share of the run.",
        thresholds: "fires when metadata / POSIX time >= 0.5 (WisIO METADATA_ACCESS_RATIO_THRESHOLD); score = clip01((f - 0.5) / 0.5 + 0.3) x clip01(I/O share / 0.2).",
        references: "Yildirim et al., WisIO, ICS 2025 (wisio/rules.py).",
    }
}

impl DarshanRule for MetadataTime {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let meta = context.ftotal(POSIX_F_META_TIME).max(0.0);
        let total =
            meta + context.ftotal(POSIX_F_READ_TIME).max(0.0) + context.ftotal(POSIX_F_WRITE_TIME).max(0.0);
        if total <= 0.0 || meta / total < 0.5 {
            return Vec::new();
        }
        let fraction = meta / total;
        let score = clip01((fraction - 0.5) / 0.5 + 0.3) * clip01(context.io_share() / 0.2);
        let why = format!(
            "metadata calls take {:.1} % of the POSIX time ({meta:.2} of {total:.2} s)",
            fraction * 100.0
        );
        vec![Finding::new(&Self::DOC, score, "POSIX", why).with("metadata_fraction", fraction, "fraction")]
    }
}
