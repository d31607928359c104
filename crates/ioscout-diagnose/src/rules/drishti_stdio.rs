//! `DRI-STDIO`: STDIO moves more than 10 % of the bytes (Drishti S01 on DFTracer counters).

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct StdioShare {
        code: "DRI-STDIO",
        family: Drishti,
        title: "STDIO moves more than 10 % of the bytes",
        detects: "Bytes read and written through STDIO (the trace's STDIO category) against STDIO + POSIX bytes (Drishti's S01; a trace has no MPI-IO layer to subtract).",
        why: "STDIO copies every request through a user-space buffer and serialises on the stream lock; Drishti recommends a high-performance interface (POSIX with large buffers, MPI-IO, HDF5).",
        evidence: "STDIO bytes, POSIX bytes, the STDIO share.",
        thresholds: "fires when STDIO / (STDIO + POSIX) bytes > 0.1 (Drishti interface_stdio); Drishti level HIGH, scored as 0.9 x the POSIX layer's share of the job (impact), so STDIO traffic that costs nothing is low.",
        references: "Bez, Ather, Byna, Drishti, PDSW 2022 (drishti/includes/module.py check_stdio, S01); shared/research/diagnosis.md 1.3.",
    }
}

impl Rule for StdioShare {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let categories = &context.analysis.categories;
        let stdio = categories.get("stdio").map_or(0, |totals| totals.size) as f64;
        let posix = categories.get("posix").map_or(0, |totals| totals.size) as f64;
        let total = stdio + posix;
        if total <= 0.0 || stdio / total <= 0.1 {
            return Vec::new();
        }
        let share = stdio / total;
        let why = format!(
            "the job moves {:.2} % of its bytes ({stdio:.0} of {total:.0}) through STDIO",
            share * 100.0
        );
        vec![
            Finding::new(&Self::DOC, 0.9 * crate::rules::impact(context, "posix").max(0.25), "stdio", why)
                .with("stdio_bytes", stdio, "bytes")
                .with("posix_bytes", posix, "bytes")
                .with("stdio_share", share, "fraction")
                .crossing("STDIO / (STDIO + POSIX) bytes > interface_stdio (0.1)"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, event, header};

    fn trace(stdio_writes: i64) -> Vec<String> {
        let mut lines = header();
        for index in 0..20 {
            let category = if index < stdio_writes { "STDIO" } else { "POSIX" };
            let name = if index < stdio_writes { "fwrite" } else { "write" };
            lines.push(event(
                7,
                name,
                category,
                1_000_000 + index * 1000,
                900,
                r#""fhash":"f1","ret":65536"#,
            ));
        }
        lines
    }

    #[test]
    fn fires_when_stdio_carries_the_bytes() {
        let analysis = analysis("drishti-stdio-positive", "posix", &trace(10));
        let findings = StdioShare.evaluate(&Context::new(&analysis, crate::Parameters::default()));
        assert_eq!(findings.len(), 1);
    }

    #[test]
    fn stays_quiet_when_posix_carries_them() {
        let analysis = analysis("drishti-stdio-negative", "posix", &trace(1));
        assert!(StdioShare.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty());
    }
}
