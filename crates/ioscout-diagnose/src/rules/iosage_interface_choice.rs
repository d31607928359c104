//! `IOS-INTERFACE`: IOSage's interface-choice pattern (STDIO for bulk data).

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct InterfaceChoice {
        code: "IOS-INTERFACE",
        family: Iosage,
        title: "Interface choice: a large share of the bytes goes through STDIO",
        detects: "STDIO calls (fread, fwrite, ...) moving more than 10 % of the POSIX and STDIO bytes, over at least 1 MiB (Drishti S01; TraceBench LLL-R/W).",
        why: "STDIO adds a user-space buffer of a few KiB in front of every transfer, splitting large requests and copying data once more; it has no parallel or collective semantics.",
        evidence: "STDIO bytes, POSIX bytes, the STDIO share.",
        thresholds: "fires when STDIO bytes / (POSIX + STDIO bytes) > 0.1 and STDIO bytes >= 1 MiB; score = clip01(share) x impact of POSIX on the job.",
        references: "Drishti S01 (interface_stdio = 0.1; shared/research/diagnosis.md 1.3); IOSage interface_choice; TraceBench LLL-R, LLL-W.",
        change: "Move bulk data through POSIX read/write with large buffers (or MPI-IO, HDF5, NetCDF for parallel jobs); if STDIO must stay, enlarge its buffer with setvbuf to the transfer size.",
        not_when: "The STDIO traffic is logs, configuration or small text output that costs a negligible share of the job.",
    }
}

impl Rule for InterfaceChoice {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let categories = &context.analysis.categories;
        let stdio = categories.get("stdio").map_or(0, |totals| totals.size) as f64;
        let posix = categories.get("posix").map_or(0, |totals| totals.size) as f64;
        let total = stdio + posix;
        if total <= 0.0 || stdio < crate::rules::MIB {
            return Vec::new();
        }
        let share = stdio / total;
        if share <= 0.1 {
            return Vec::new();
        }
        let weight = crate::rules::impact(context, "posix");
        let why =
            format!("STDIO moves {:.1} MiB, {:.0}% of the bytes", stdio / crate::rules::MIB, share * 100.0);
        vec![
            Finding::new(&Self::DOC, share * weight, "stdio", why)
                .with("stdio_bytes", stdio, "bytes")
                .with("posix_bytes", posix, "bytes")
                .with("stdio_byte_share", share, "fraction")
                .crossing("STDIO bytes / all bytes > 0.1"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, event, header};

    fn trace(category: &str) -> Vec<String> {
        let mut lines = header();
        for index in 0..20 {
            lines.push(event(
                7,
                "fwrite",
                category,
                1_000_000 + index * 1000,
                900,
                r#""fhash":"f1","ret":1048576"#,
            ));
        }
        lines
    }

    #[test]
    fn fires_on_bulk_stdio() {
        let analysis = analysis("interface-positive", "posix", &trace("STDIO"));
        assert_eq!(InterfaceChoice.evaluate(&Context::new(&analysis, crate::Parameters::default())).len(), 1);
    }

    #[test]
    fn stays_quiet_on_posix() {
        let analysis = analysis("interface-negative", "posix", &trace("POSIX"));
        assert!(InterfaceChoice.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty());
    }
}
