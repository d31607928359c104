//! The [`Fold`] a scan fills: what one unit's events are handed to, how much of each line the
//! fold needs decoded, and the fold that needs nothing ([`NoFold`]). Sits between the line
//! decoders ([`crate::event`], [`crate::fields`]) and the callers' folds (index statistics, the
//! analysis, queries).

use ioscout_model::Phase;

use ioscout_model::Event;

use crate::fields::EventFields;

/// How much of each line a fold needs decoded: the one switch the line processor reads.
///
/// From cheapest to dearest: [`Decode::Skim`] hands raw lines over and decodes nothing,
/// [`Decode::Count`] validates and counts lines by phase ([`crate::event::decode_phase`]),
/// [`Decode::Fields`] decodes the fields of common lines ([`crate::fields::decode_fields`]) and the
/// other lines of the chosen phases fully, [`Decode::Events`] decodes every line of the chosen
/// phases fully ([`crate::event::decode_line`]). Lines of phases not chosen are validated and
/// counted only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decode {
    /// Every line's bytes go to [`Fold::skim`]; the scanner neither decodes nor validates nor
    /// counts them (the unit's phase counts stay zero), so a skim is only for a pre-pass whose
    /// report is not shown.
    Skim,
    /// Lines are validated and counted by phase; the fold sees no events, and the generation
    /// evidence of [`crate::FileSummary`] comes from top-level fields only.
    Count,
    /// Lines of these phases are decoded fully and given to [`Fold::event`].
    Events(Phases),
    /// Common lines are decoded to [`EventFields`] and, when of these phases, given to
    /// [`Fold::fields`]; the other lines of these phases are decoded fully and given to
    /// [`Fold::event`].
    Fields(Phases),
}

impl Decode {
    /// The phases whose events the fold is given (none for [`Decode::Skim`] and
    /// [`Decode::Count`]).
    pub fn phases(self) -> Phases {
        match self {
            Decode::Skim | Decode::Count => Phases::NONE,
            Decode::Events(phases) | Decode::Fields(phases) => phases,
        }
    }

    /// What a scan shared by two folds decodes: the phases either wants, through the fields path
    /// only when each fold that wants events can work from fields. A skimming fold cannot share a
    /// pass with a decoding one (raw lines are not decoded); two skims, or a skim and a count,
    /// skim.
    #[must_use]
    pub fn union(self, other: Decode) -> Decode {
        match (self, other) {
            (Decode::Count, either) | (either, Decode::Count) => either,
            (Decode::Skim, _) | (_, Decode::Skim) => Decode::Skim,
            (Decode::Fields(first), Decode::Fields(second)) => Decode::Fields(first.union(second)),
            (first, second) => Decode::Events(first.phases().union(second.phases())),
        }
    }
}

/// A set of [`Phase`]s, one bit per [`Phase::index`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phases(u8);

impl Phases {
    /// No phase.
    pub const NONE: Phases = Phases(0);
    /// Every phase.
    pub const ALL: Phases = Phases((1 << Phase::ALL.len()) - 1);

    /// The set of the given phases.
    pub const fn of(phases: &[Phase]) -> Phases {
        let mut bits = 0;
        let mut position = 0;
        while position < phases.len() {
            bits |= 1 << phases[position].index();
            position += 1;
        }
        Phases(bits)
    }

    /// Whether `phase` is in the set.
    pub const fn contains(self, phase: Phase) -> bool {
        self.0 & (1 << phase.index()) != 0
    }

    /// The phases in either set.
    #[must_use]
    pub const fn union(self, other: Phases) -> Phases {
        Phases(self.0 | other.0)
    }
}

/// Receives the events of one unit. One fold is made per unit, filled by one worker, then handed
/// to the caller in file order.
pub trait Fold: Send {
    /// Called for every valid event of a phase the fold decodes ([`Fold::decode`]), in the order
    /// of the unit's lines.
    fn event(&mut self, event: &Event<'_>);

    /// How much of each line this fold needs decoded; every event by default.
    fn decode(&self) -> Decode {
        Decode::Events(Phases::ALL)
    }

    /// Called instead of [`Fold::event`] for lines decoded by the fields path
    /// ([`Decode::Fields`]).
    fn fields(&mut self, fields: &EventFields<'_>) {
        let _ = fields;
    }

    /// Called with the bytes of each line (without its newline) when the fold skims
    /// ([`Decode::Skim`]).
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

    /// The position as one word (for packing; [`LinePosition::from_bits`] gives it back).
    pub fn to_bits(self) -> u64 {
        self.0
    }

    /// The position [`LinePosition::to_bits`] gave.
    pub fn from_bits(bits: u64) -> LinePosition {
        LinePosition(bits)
    }
}

/// A fold that ignores events (for counting, which [`FileSummary`] already does).
#[derive(Debug, Default)]
pub struct NoFold;

impl Fold for NoFold {
    fn event(&mut self, _event: &Event<'_>) {}

    fn decode(&self) -> Decode {
        Decode::Count
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
        if self.first.decode().phases().contains(phase) {
            self.first.event(event);
        }
        if self.second.decode().phases().contains(phase) {
            self.second.event(event);
        }
    }

    fn decode(&self) -> Decode {
        self.first.decode().union(self.second.decode())
    }

    fn fields(&mut self, fields: &EventFields<'_>) {
        if self.first.decode().phases().contains(fields.phase) {
            self.first.fields(fields);
        }
        if self.second.decode().phases().contains(fields.phase) {
            self.second.fields(fields);
        }
    }

    fn skim(&mut self, line: &[u8]) {
        if self.first.decode() == Decode::Skim {
            self.first.skim(line);
        }
        if self.second.decode() == Decode::Skim {
            self.second.skim(line);
        }
    }

    fn line_position(&mut self, position: LinePosition) {
        self.first.line_position(position);
        self.second.line_position(position);
    }
}

#[cfg(test)]
mod tests {
    use ioscout_model::Phase;

    use super::{Decode, LinePosition, Phases};

    const COMPLETE: Phases = Phases::of(&[Phase::Complete]);
    const METADATA: Phases = Phases::of(&[Phase::Metadata]);

    #[test]
    fn a_shared_scan_decodes_what_either_fold_wants_and_uses_fields_only_when_both_can() {
        let both = Phases::of(&[Phase::Complete, Phase::Metadata]);
        assert_eq!(Decode::Count.union(Decode::Fields(COMPLETE)), Decode::Fields(COMPLETE));
        assert_eq!(Decode::Events(METADATA).union(Decode::Count), Decode::Events(METADATA));
        assert_eq!(Decode::Fields(COMPLETE).union(Decode::Fields(METADATA)), Decode::Fields(both));
        assert_eq!(Decode::Fields(COMPLETE).union(Decode::Events(METADATA)), Decode::Events(both));
        assert_eq!(Decode::Skim.union(Decode::Count), Decode::Skim);
        assert_eq!(Decode::Count.union(Decode::Count), Decode::Count);
        assert!(Decode::Count.phases() == Phases::NONE && Decode::Skim.phases() == Phases::NONE);
    }

    #[test]
    fn a_phase_set_holds_exactly_its_phases() {
        for phase in Phase::ALL {
            assert!(Phases::ALL.contains(phase));
            assert!(!Phases::NONE.contains(phase));
            assert_eq!(COMPLETE.contains(phase), phase == Phase::Complete);
        }
    }

    #[test]
    fn a_line_in_a_unit_counts_from_the_units_base_and_a_stitched_line_is_absolute() {
        assert_eq!(LinePosition::in_unit(0).line(10), 11);
        assert_eq!(LinePosition::in_unit(4).line(10), 15);
        assert_eq!(LinePosition::in_file(7).line(10), 7);
        assert_eq!(LinePosition::default().line(0), 1);
    }
}
