//! Search strategies behind one ask/tell loop. A configuration is the position of each
//! parameter's value (in spec order); scores are oriented so that larger is better.
//!
//! - [`Ofat`]: the optimisation pipeline's one-factor-at-a-time greedy search (a reconstruction
//!   of GLANCED-IO's, labelled as such in `tuning-and-advice.md`): from the baseline, one
//!   parameter at a time in layer order (L1, L2, L3; portable to hard), try each of its values
//!   with the others fixed, keep the best if it beats the incumbent by more than the noise
//!   margin, never revisit a parameter. Cost: the sum of the value counts, not their product.
//! - [`Grid`]: every configuration (small spaces).
//! - [`RandomSearch`]: uniform sampling without repetition.
//! - [`Tpe`]: a Tree-structured Parzen Estimator per parameter (the `tpe` crate, univariate like
//!   Optuna's default), a model-based baseline.

use rand::{RngExt as _, SeedableRng as _};

/// A configuration: for each parameter (spec order), the position of its value.
pub type Config = Vec<usize>;

/// A search strategy.
pub trait Strategy {
    /// Its name.
    fn name(&self) -> &'static str;
    /// The next configuration to evaluate, or `None` when the strategy is done.
    fn ask(&mut self) -> Option<Config>;
    /// The oriented score of a configuration it asked for (`None`: the run failed).
    fn tell(&mut self, config: &Config, score: Option<f64>);
}

/// A search strategy, as the command line and the MCP `tune` tool name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum StrategyName {
    /// One factor at a time, greedy ([`Ofat`]).
    Ofat,
    /// Every combination ([`Grid`]).
    Grid,
    /// Random configurations ([`RandomSearch`]).
    Random,
    /// A tree-structured Parzen estimator ([`Tpe`]).
    Tpe,
}

impl StrategyName {
    /// Every strategy.
    pub const ALL: [StrategyName; 4] =
        [StrategyName::Ofat, StrategyName::Grid, StrategyName::Random, StrategyName::Tpe];

    /// `ofat`, `grid`, `random` or `tpe`.
    pub fn name(self) -> &'static str {
        match self {
            StrategyName::Ofat => "ofat",
            StrategyName::Grid => "grid",
            StrategyName::Random => "random",
            StrategyName::Tpe => "tpe",
        }
    }
}

impl std::fmt::Display for StrategyName {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

impl std::str::FromStr for StrategyName {
    type Err = crate::TuneError;

    /// The strategy named `text`; an unknown name is [`crate::TuneError::Strategy`].
    fn from_str(text: &str) -> Result<StrategyName, crate::TuneError> {
        StrategyName::ALL
            .into_iter()
            .find(|strategy| strategy.name() == text)
            .ok_or_else(|| crate::TuneError::Strategy(text.to_string()))
    }
}

/// The strategy `name`.
/// `diagnostic` lists the parameters that change what the application does: OFAT sweeps them
/// (their effect is reported as a bound) but never commits them.
pub fn by_name(
    name: StrategyName,
    sizes: &[usize],
    baseline: &Config,
    order: &[usize],
    diagnostic: &[usize],
    noise_margin: f64,
    seed: u64,
) -> Box<dyn Strategy> {
    match name {
        StrategyName::Ofat => {
            let mut ofat = Ofat::new(sizes, baseline.clone(), order.to_vec(), noise_margin);
            ofat.diagnostic = diagnostic.to_vec();
            Box::new(ofat)
        }
        StrategyName::Grid => Box::new(Grid::new(sizes)),
        StrategyName::Random => Box::new(RandomSearch::new(sizes, seed)),
        StrategyName::Tpe => Box::new(Tpe::new(sizes, seed)),
    }
}

/// One-factor-at-a-time greedy search.
#[derive(Debug)]
pub struct Ofat {
    sizes: Vec<usize>,
    order: Vec<usize>,
    noise_margin: f64,
    current: Config,
    incumbent: Option<f64>,
    /// Position in `order` of the parameter being swept.
    step: usize,
    /// Values of that parameter still to try.
    pending: Vec<usize>,
    /// Best value of the sweep and its score.
    sweep_best: Option<(usize, f64)>,
    started: bool,
    /// Parameters swept but never committed.
    pub diagnostic: Vec<usize>,
}

impl Ofat {
    /// A search from `baseline` over the parameters in `order` (indices into `sizes`).
    pub fn new(sizes: &[usize], baseline: Config, order: Vec<usize>, noise_margin: f64) -> Ofat {
        Ofat {
            sizes: sizes.to_vec(),
            order,
            noise_margin,
            current: baseline,
            incumbent: None,
            step: 0,
            pending: Vec::new(),
            sweep_best: None,
            started: false,
            diagnostic: Vec::new(),
        }
    }

    fn begins_sweep(&mut self) {
        while self.step < self.order.len() {
            let parameter = self.order[self.step];
            self.pending =
                (0..self.sizes[parameter]).filter(|value| *value != self.current[parameter]).rev().collect();
            self.sweep_best = None;
            if !self.pending.is_empty() {
                return;
            }
            self.step += 1;
        }
    }

    fn beats(&self, score: f64, reference: f64) -> bool {
        score > reference + self.noise_margin * reference.abs()
    }

    fn commit(&mut self) {
        let parameter = self.order[self.step];
        if let (Some((value, score)), Some(incumbent)) = (self.sweep_best, self.incumbent)
            && self.beats(score, incumbent)
            && !self.diagnostic.contains(&parameter)
        {
            self.current[parameter] = value;
            self.incumbent = Some(score);
        }
        self.step += 1;
        self.begins_sweep();
    }
}

impl Strategy for Ofat {
    fn name(&self) -> &'static str {
        "ofat"
    }

    fn ask(&mut self) -> Option<Config> {
        if !self.started {
            return Some(self.current.clone());
        }
        loop {
            if self.step >= self.order.len() {
                return None;
            }
            if let Some(&value) = self.pending.last() {
                let mut config = self.current.clone();
                config[self.order[self.step]] = value;
                return Some(config);
            }
            self.commit();
        }
    }

    fn tell(&mut self, config: &Config, score: Option<f64>) {
        if !self.started {
            self.started = true;
            self.incumbent = score;
            self.begins_sweep();
            return;
        }
        if self.step >= self.order.len() {
            return;
        }
        let parameter = self.order[self.step];
        let value = config[parameter];
        self.pending.retain(|pending| *pending != value);
        if let Some(score) = score {
            if self.incumbent.is_none() {
                // The baseline failed: the first working configuration becomes the incumbent.
                self.current.clone_from(config);
                self.incumbent = Some(score);
            } else if self.sweep_best.is_none_or(|(_, best)| score > best) {
                self.sweep_best = Some((value, score));
            }
        }
    }
}

/// Every configuration, in mixed-radix order.
#[derive(Debug)]
pub struct Grid {
    sizes: Vec<usize>,
    next: Option<Config>,
}

impl Grid {
    /// The grid over `sizes`.
    pub fn new(sizes: &[usize]) -> Grid {
        Grid { sizes: sizes.to_vec(), next: Some(vec![0; sizes.len()]) }
    }
}

impl Strategy for Grid {
    fn name(&self) -> &'static str {
        "grid"
    }

    fn ask(&mut self) -> Option<Config> {
        let config = self.next.take()?;
        let mut following = config.clone();
        let mut advanced = false;
        for position in (0..following.len()).rev() {
            following[position] += 1;
            if following[position] < self.sizes[position] {
                advanced = true;
                break;
            }
            following[position] = 0;
        }
        self.next = advanced.then_some(following);
        Some(config)
    }

    fn tell(&mut self, _config: &Config, _score: Option<f64>) {}
}

/// Uniform random configurations, each at most once.
#[derive(Debug)]
pub struct RandomSearch {
    sizes: Vec<usize>,
    random: rand::rngs::StdRng,
    seen: std::collections::BTreeSet<Config>,
    total: u128,
}

impl RandomSearch {
    /// Random search over `sizes` with `seed`.
    pub fn new(sizes: &[usize], seed: u64) -> RandomSearch {
        RandomSearch {
            sizes: sizes.to_vec(),
            random: rand::rngs::StdRng::seed_from_u64(seed),
            seen: std::collections::BTreeSet::new(),
            total: sizes.iter().map(|size| *size as u128).product(),
        }
    }
}

impl Strategy for RandomSearch {
    fn name(&self) -> &'static str {
        "random"
    }

    fn ask(&mut self) -> Option<Config> {
        if self.seen.len() as u128 >= self.total {
            return None;
        }
        loop {
            let config: Config = self.sizes.iter().map(|size| self.random.random_range(0..*size)).collect();
            if self.seen.insert(config.clone()) {
                return Some(config);
            }
        }
    }

    fn tell(&mut self, config: &Config, _score: Option<f64>) {
        self.seen.insert(config.clone());
    }
}

/// One univariate TPE per parameter (minimising the negated score).
pub struct Tpe {
    optimizers: Vec<tpe::TpeOptimizer>,
    random: rand::rngs::StdRng,
    asked: Vec<f64>,
    worst: f64,
}

impl std::fmt::Debug for Tpe {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Tpe").field("parameters", &self.optimizers.len()).finish_non_exhaustive()
    }
}

impl Tpe {
    /// TPE over `sizes` with `seed`.
    pub fn new(sizes: &[usize], seed: u64) -> Tpe {
        let optimizers = sizes
            .iter()
            .filter_map(|size| tpe::categorical_range(*size).ok())
            .map(|range| tpe::TpeOptimizer::new(tpe::histogram_estimator(), range))
            .collect();
        Tpe { optimizers, random: rand::rngs::StdRng::seed_from_u64(seed), asked: Vec::new(), worst: 0.0 }
    }
}

impl Strategy for Tpe {
    fn name(&self) -> &'static str {
        "tpe"
    }

    fn ask(&mut self) -> Option<Config> {
        let mut config = Vec::with_capacity(self.optimizers.len());
        self.asked.clear();
        for optimizer in &mut self.optimizers {
            let raw = optimizer.ask(&mut self.random).ok()?;
            self.asked.push(raw);
            config.push(raw.max(0.0) as usize);
        }
        Some(config)
    }

    fn tell(&mut self, config: &Config, score: Option<f64>) {
        // A failure counts as worse than anything seen.
        let value = match score {
            Some(score) => {
                self.worst = self.worst.min(score);
                -score
            }
            None => -(self.worst - 1.0 - self.worst.abs()),
        };
        for (position, optimizer) in self.optimizers.iter_mut().enumerate() {
            let raw = match self.asked.get(position) {
                Some(raw) if *raw as usize == config[position] => *raw,
                _ => config[position] as f64 + 0.5,
            };
            let _ = optimizer.tell(raw, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ofat_sweeps_each_parameter_once_from_the_baseline() {
        // Score = the sum of positions; best is the last value of each.
        let sizes = [3, 2, 4];
        let mut ofat = Ofat::new(&sizes, vec![0, 0, 0], vec![0, 1, 2], 0.0);
        let mut asked = 0;
        while let Some(config) = ofat.ask() {
            asked += 1;
            let score = config.iter().sum::<usize>() as f64;
            ofat.tell(&config, Some(score));
        }
        assert_eq!(asked, 1 + 2 + 1 + 3);
        assert_eq!(ofat.current, vec![2, 1, 3]);
    }

    #[test]
    fn ofat_keeps_the_incumbent_within_the_noise_margin() {
        let mut ofat = Ofat::new(&[2], vec![0], vec![0], 0.05);
        let baseline = ofat.ask();
        ofat.tell(&vec![0], Some(100.0));
        assert_eq!(baseline, Some(vec![0]));
        let candidate = ofat.ask().unwrap_or_default();
        ofat.tell(&candidate, Some(103.0));
        assert_eq!(ofat.ask(), None);
        assert_eq!(ofat.current, vec![0]);
    }

    #[test]
    fn grid_and_random_cover_the_space_exactly_once() {
        let sizes = [2, 3];
        let mut grid = Grid::new(&sizes);
        let mut all = std::collections::BTreeSet::new();
        while let Some(config) = grid.ask() {
            assert!(all.insert(config));
        }
        assert_eq!(all.len(), 6);
        let mut random = RandomSearch::new(&sizes, 7);
        let mut seen = std::collections::BTreeSet::new();
        while let Some(config) = random.ask() {
            assert!(seen.insert(config));
        }
        assert_eq!(seen, all);
    }

    #[test]
    fn tpe_asks_valid_positions() {
        let sizes = [3, 5];
        let mut search = Tpe::new(&sizes, 1);
        for _ in 0..30 {
            let Some(config) = search.ask() else { panic!("tpe stopped") };
            assert!(config[0] < 3 && config[1] < 5, "{config:?}");
            let score = -((config[0] as f64 - 2.0).powi(2) + (config[1] as f64 - 1.0).powi(2));
            search.tell(&config, Some(score));
        }
    }
}
