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
}
