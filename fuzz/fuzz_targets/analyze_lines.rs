//! Any bytes, as trace lines, go through both passes of the analysis and the view computation
//! without panicking: the first pass's skim reads raw lines without validating them, so it must
//! survive anything; the second pass and the views must survive whatever the first pass let
//! through (for example a time origin from a line the second pass rejects).
#![no_main]

use ioscout_analysis::fold::{Bins, Keep};
use ioscout_analysis::{AnalysisFold, AnalysisOptions, Binning, Prepared, PrepassFold, Preset, PresetName};
use ioscout_read::Fold;
use ioscout_read::event::{Line, decode_line};
use ioscout_read::fields::decode_fields;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let categories = std::collections::BTreeSet::new();
    let candidates: Vec<Preset> = [PresetName::Dlio, PresetName::DlioPrev]
        .into_iter()
        .filter_map(|name| Preset::named(name, &categories))
        .collect();
    let mut prepass = PrepassFold::new(&candidates);
    for line in data.split(|byte| *byte == b'\n') {
        prepass.skim(line);
    }
    let prepared = Prepared::new(prepass, Some(0));
    let preset = &candidates[0];
    for binning in [Binning::Relative, Binning::Dfanalyzer009] {
        let bins = Bins { width: 1_000_000, binning, exact: true };
        // The file view's cells under one binning, the file totals under the other.
        let files = binning == Binning::Relative;
        let keep = Keep { files, file_totals: !files, epochs: true, steps: true };
        let mut fold = AnalysisFold::new(&prepared, preset, bins, keep);
        for line in data.split(|byte| *byte == b'\n') {
            if let Some(fields) = decode_fields(line) {
                fold.fields(&fields);
            } else if let Ok(Line::Event(event)) = decode_line(line) {
                fold.event(&event);
            }
        }
        let options = AnalysisOptions { binning, file_totals: !files, ..AnalysisOptions::default() };
        let _ = ioscout_analysis::finish(&options, preset, &prepared, &fold);
    }
});
