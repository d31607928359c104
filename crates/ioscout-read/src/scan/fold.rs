//! The [`Fold`] a scan fills: what one unit's events are handed to, how much of each line the
//! fold needs decoded, and the fold that needs nothing ([`NoFold`]). Sits between the line
//! decoders ([`crate::event`], [`crate::fields`]) and the callers' folds (index statistics, the
//! analysis, queries).

use ioscout_model::Phase;

use ioscout_model::Event;

use crate::fields::EventFields;

/// Receives the events of one unit. One fold is made per unit, filled by one worker, then handed
/// to the caller in file order.
pub trait Fold: Send {
    /// Called for every valid event, in the order of the unit's lines.
    fn event(&mut self, event: &Event<'_>);

    /// Whether this fold looks at events at all. When it does not, lines are only validated
    /// and counted by phase ([`crate::event::decode_phase`]), which is much cheaper, and the
    /// generation evidence of [`FileSummary`] comes from top-level fields only.
    fn needs_events(&self) -> bool {
        true
    }

    /// Whether this fold looks at events of `phase`. Lines of other phases are only validated
    /// and counted (as with [`Fold::needs_events`] false), which is much cheaper: a fold that
    /// reads metadata only skips building the millions of complete events.
    fn wants(&self, phase: Phase) -> bool {
        let _ = phase;
        true
    }

    /// Whether this fold can work from [`EventFields`] alone. When it can, common lines are
    /// decoded by [`crate::fields::decode_fields`] and given to [`Fold::fields`]; the others still
    /// go to [`Fold::event`].
    fn wants_fields(&self) -> bool {
        false
    }

    /// Called instead of [`Fold::event`] for lines decoded by the fields path.
    fn fields(&mut self, fields: &EventFields<'_>) {
        let _ = fields;
    }

    /// Whether this fold skims raw lines instead of decoded events. A skimming fold gets every
    /// line's bytes in [`Fold::skim`] and decodes what it needs itself; the scanner neither
    /// decodes nor validates nor counts those lines (the unit's phase counts stay zero), so a
    /// skim is only for a pre-pass whose report is not shown.
    fn skims(&self) -> bool {
        false
    }

    /// Called with the bytes of each line (without its newline) when [`Fold::skims`].
    fn skim(&mut self, line: &[u8]) {
        let _ = line;
    }

    /// Called before each line given to [`Fold::event`] or [`Fold::fields`] with where that
    /// line is, for folds that name lines in what they report.
    fn line_position(&mut self, position: LinePosition) {
        let _ = position;
    }
}

/// Where a line is in its file: its index within the unit being decoded (whose first line is
/// line [`crate::UnitSpan::line_base`] + 1 of the file, known only at merge time), or, for a
/// line the merge stitched across two units, its line number in the file. One word, so a fold
/// can keep one per event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinePosition(u64);

impl LinePosition {
    const ABSOLUTE: u64 = 1 << 63;

    /// The line at `index` (from 0) within its unit.
    pub fn in_unit(index: u64) -> LinePosition {
        LinePosition(index & !Self::ABSOLUTE)
    }

    /// Line `line` (from 1) of the file.
    pub fn in_file(line: u64) -> LinePosition {
        LinePosition(line | Self::ABSOLUTE)
    }

    /// The line number in the file (from 1), given the unit's `line_base`.
    pub fn line(self, line_base: u64) -> u64 {
        if self.0 & Self::ABSOLUTE != 0 { self.0 & !Self::ABSOLUTE } else { line_base + self.0 + 1 }
    }
}

/// A fold that ignores events (for counting, which [`FileSummary`] already does).
#[derive(Debug, Default)]
pub struct NoFold;

impl Fold for NoFold {
    fn event(&mut self, _event: &Event<'_>) {}

    fn needs_events(&self) -> bool {
        false
    }
}

/// Two folds filled by one scan: every event (or decoded fields) goes to each fold that wants
/// it, so two stages share one pass over the input (the analysis and the derived Darshan records,
/// for example). Decoded fields are used only when both folds can work from them.
#[derive(Debug, Default)]
pub struct Both<A, B> {
    /// The first fold.
    pub first: A,
    /// The second fold.
    pub second: B,
}

impl<A: Fold, B: Fold> Fold for Both<A, B> {
    fn event(&mut self, event: &Event<'_>) {
        let phase = event.phase.unwrap_or(Phase::Other);
        if self.first.needs_events() && self.first.wants(phase) {
            self.first.event(event);
        }
        if self.second.needs_events() && self.second.wants(phase) {
            self.second.event(event);
        }
    }

    fn needs_events(&self) -> bool {
        self.first.needs_events() || self.second.needs_events()
    }

    fn wants(&self, phase: Phase) -> bool {
        (self.first.needs_events() && self.first.wants(phase))
            || (self.second.needs_events() && self.second.wants(phase))
    }

    fn wants_fields(&self) -> bool {
        let ready = |needs: bool, fields: bool| !needs || fields;
        ready(self.first.needs_events(), self.first.wants_fields())
            && ready(self.second.needs_events(), self.second.wants_fields())
    }

    fn fields(&mut self, fields: &EventFields<'_>) {
        if self.first.needs_events() && self.first.wants(fields.phase) {
            self.first.fields(fields);
        }
        if self.second.needs_events() && self.second.wants(fields.phase) {
            self.second.fields(fields);
        }
    }

    fn line_position(&mut self, position: LinePosition) {
        self.first.line_position(position);
        self.second.line_position(position);
    }
}

#[cfg(test)]
mod tests {
    use super::LinePosition;

    #[test]
    fn a_line_in_a_unit_counts_from_the_units_base_and_a_stitched_line_is_absolute() {
        assert_eq!(LinePosition::in_unit(0).line(10), 11);
        assert_eq!(LinePosition::in_unit(4).line(10), 15);
        assert_eq!(LinePosition::in_file(7).line(10), 7);
        assert_eq!(LinePosition::default().line(0), 1);
    }
}
