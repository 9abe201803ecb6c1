use super::ledger::{Ledger, ReplyUse};
use super::price::{DEFAULTS, MAX_ENTRIES, PriceError, normalise};
use super::*;

fn reported(input: u64, cached: u64, output: u64) -> Consumption {
    Consumption {
        input: Some(input),
        cached_input: Some(cached),
        output: TokenCount {
            value: output,
            estimated: false,
        },
        images: 0,
        ..Consumption::default()
    }
}

fn price_of(model: &str) -> Option<(Price, PriceOrigin)> {
    Prices::default().lookup(model)
}

#[test]
fn a_reply_costs_its_uncached_input_cached_input_output_and_images() {
    let price = Price {
        input: 2.5,
        cached_input: Some(1.25),
        output: 10.0,
        per_image: Some(0.04),
        ..Price::default()
    };
    let mut used = reported(1_000_000, 400_000, 100_000);
    used.images = 2;
    let cost = used.cost(&price);
    // 600k × 2.5 + 400k × 1.25 + 100k × 10 (per million) + 2 × 0.04
    assert!(
        (cost.usd - (1.5 + 0.5 + 1.0 + 0.08)).abs() < 1e-9,
        "{cost:?}"
    );
    assert!(!cost.estimated);
    // Without a cached price, cached input is billed as input.
    let plain = Price {
        cached_input: None,
        per_image: None,
        ..price
    };
    assert!((reported(1_000_000, 400_000, 0).cost(&plain).usd - 2.5).abs() < 1e-9);
    // A cached count above the input (a provider's odd report) never goes negative.
    assert!((reported(10, 50, 0).cost(&price).usd - 10.0 * 1.25 / 1e6).abs() < 1e-12);
}

#[test]
fn a_cost_resting_on_a_guess_is_marked_as_an_estimate() {
    let price = Price::tokens(1.0, 0.5, 2.0);
    let mut guessed_output = reported(1000, 0, 500);
    guessed_output.output.estimated = true;
    assert!(guessed_output.cost(&price).estimated);
    let unreported_input = Consumption {
        input: None,
        ..reported(0, 0, 500)
    };
    let cost = unreported_input.cost(&price);
    assert!(cost.estimated);
    assert!((cost.usd - 0.001).abs() < 1e-12);
    assert!(cost.to_string().starts_with('~'));
    // From the record: reported usage, or an output estimate from the text.
    let usage = crate::provider::Usage {
        input_tokens: Some(10),
        output_tokens: Some(20),
        reasoning_tokens: None,
        cached_input_tokens: Some(4),
        cache_write_input_tokens: Some(2),
    };
    let of = Consumption::of(
        &usage,
        TokenCount {
            value: 20,
            estimated: false,
        },
        1,
        0,
        0,
    );
    assert_eq!(
        (of.input, of.cached_input, of.images),
        (Some(10), Some(4), 1)
    );
}

#[test]
fn amounts_read_as_people_write_them() {
    let cases = [
        (0.0, "$0"),
        (12.345, "$12.35"),
        (1.0, "$1.00"),
        (0.1234, "$0.1234"),
        (0.05, "$0.05"),
        (0.012_34, "$0.0123"),
        (0.000_423, "$0.00042"),
        (0.003, "$0.003"),
        (0.000_000_5, "<$0.000001"),
        (-1.0, "$0"),
        (f64::NAN, "$0"),
    ];
    for (usd, text) in cases {
        assert_eq!(format_usd(usd), text, "{usd}");
    }
    let estimate = Cost {
        usd: 0.25,
        estimated: true,
    };
    assert_eq!(estimate.to_string(), "~$0.25");
}

#[test]
fn a_default_prices_its_dated_and_preview_versions_and_other_spellings() {
    let gpt_4o = price_of("gpt-4o").unwrap();
    assert_eq!(gpt_4o.1, PriceOrigin::Default);
    for id in [
        "gpt-4o-2024-08-06",
        "GPT-4o",
        "openai/gpt-4o",
        "gpt-4o-latest",
    ] {
        assert_eq!(price_of(id), Some(gpt_4o), "{id}");
    }
    let sonnet = price_of("claude-3-5-sonnet").unwrap();
    assert_eq!(price_of("anthropic/claude-3.5-sonnet"), Some(sonnet));
    assert_eq!(price_of("claude-3-5-sonnet-20241022"), Some(sonnet));
    let flash = price_of("gemini-2.5-flash").unwrap();
    assert_eq!(
        price_of("models/gemini-2.5-flash-preview-05-20"),
        Some(flash)
    );
    assert_eq!(
        price_of("gemini-2.0-flash-001").map(|p| p.0.input),
        Some(0.1)
    );
}

#[test]
fn a_default_never_prices_another_model_that_starts_with_its_name() {
    // The longest name wins.
    assert_eq!(price_of("gpt-4o-mini-2024-07-18").unwrap().0.input, 0.15);
    assert_eq!(price_of("gemini-2.5-flash-lite").unwrap().0.input, 0.1);
    assert_eq!(price_of("claude-opus-4-5-20251101").unwrap().0.output, 25.0);
    assert_eq!(price_of("claude-opus-4-20250514").unwrap().0.output, 75.0);
    assert_eq!(price_of("claude-sonnet-4-5-20250929").unwrap().0.input, 3.0);
    // Other models are not priced by a shorter name.
    for id in [
        "gpt-4o-audio-preview",
        "o3-pro",
        "gpt-5-2",
        "gpt-5.2",
        "chatgpt-4o-latest",
        "llama3.1:8b",
        "",
    ] {
        assert_eq!(price_of(id), None, "{id}");
    }
}

#[test]
fn every_default_is_a_price_that_could_be_kept_and_is_named_once() {
    let mut names: Vec<String> = DEFAULTS.iter().map(|(name, _)| normalise(name)).collect();
    for (name, price) in DEFAULTS {
        assert_eq!(price.check(), Ok(()), "{name}");
        assert!(price.output >= price.input, "{name}");
        assert!(
            price.cached_input.is_some_and(|c| c <= price.input),
            "{name}"
        );
        assert_eq!(price_of(name).map(|p| p.0), Some(*price), "{name}");
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), DEFAULTS.len());
}

#[test]
fn the_users_prices_win_and_a_pattern_prices_every_id_it_starts() {
    let mut prices = Prices::default();
    let mine = Price::tokens(1.0, 1.0, 1.0);
    prices
        .set(PriceEntry {
            model: " GPT-4o ".into(),
            price: mine,
        })
        .unwrap();
    assert_eq!(prices.lookup("gpt-4o"), Some((mine, PriceOrigin::User)));
    // Exact means exact: a dated version keeps the default.
    assert_eq!(
        prices.lookup("gpt-4o-2024-08-06").unwrap().1,
        PriceOrigin::Default
    );
    let local = Price::default();
    prices
        .set(PriceEntry {
            model: "llama*".into(),
            price: local,
        })
        .unwrap();
    let longer = Price::tokens(0.5, 0.5, 0.5);
    prices
        .set(PriceEntry {
            model: "llama3.1*".into(),
            price: longer,
        })
        .unwrap();
    assert_eq!(prices.lookup("llama3:8b"), Some((local, PriceOrigin::User)));
    assert_eq!(
        prices.lookup("llama3.1:8b"),
        Some((longer, PriceOrigin::User))
    );
    // Setting a model again replaces its price; removing brings the default back.
    prices
        .set(PriceEntry {
            model: "gpt-4o".into(),
            price: local,
        })
        .unwrap();
    assert_eq!(prices.entries.len(), 3);
    assert!(prices.remove("GPT-4O"));
    assert!(!prices.remove("gpt-4o"));
    assert_eq!(prices.lookup("gpt-4o").unwrap().1, PriceOrigin::Default);
}

#[test]
fn a_price_that_cannot_be_kept_is_refused_with_its_reason_and_nothing_changes() {
    let mut prices = Prices::default();
    let good = Price::tokens(1.0, 0.5, 2.0);
    let refused = [
        ("", good, PriceError::NoModel),
        ("*", good, PriceError::NoModel),
        (&"m".repeat(201)[..], good, PriceError::ModelTooLong),
        (
            "a",
            Price {
                input: -1.0,
                ..good
            },
            PriceError::Amount,
        ),
        (
            "a",
            Price {
                output: f64::NAN,
                ..good
            },
            PriceError::Amount,
        ),
        (
            "a",
            Price {
                per_image: Some(f64::INFINITY),
                ..good
            },
            PriceError::Amount,
        ),
        (
            "a",
            Price {
                cached_input: Some(20_000.0),
                ..good
            },
            PriceError::Amount,
        ),
    ];
    for (model, price, error) in refused {
        let entry = PriceEntry {
            model: model.into(),
            price,
        };
        assert_eq!(prices.set(entry), Err(error), "{model}");
        assert!(error.code().starts_with("PRICE_"));
    }
    assert!(prices.entries.is_empty());
    for n in 0..MAX_ENTRIES {
        prices
            .set(PriceEntry {
                model: format!("m{n}"),
                price: good,
            })
            .unwrap();
    }
    let one_more = PriceEntry {
        model: "another".into(),
        price: good,
    };
    assert_eq!(prices.set(one_more), Err(PriceError::TooMany));
    assert_eq!(prices.entries.len(), MAX_ENTRIES);
}

#[test]
fn a_stored_table_is_repaired_not_refused() {
    let stored = r#"{"entries":[
        {"model":"a","input":1,"output":2},
        {"model":"","input":1,"output":2},
        {"model":"b","input":-3,"output":2},
        {"model":"A","input":5,"output":6,"cachedInput":1}
    ]}"#;
    let prices: Prices = serde_json::from_str(stored).unwrap();
    let repaired = prices.repaired();
    assert_eq!(repaired.entries.len(), 1);
    assert_eq!(repaired.entries[0].price.input, 5.0);
    // Written back, the JSON is flat and camelCase.
    let json = serde_json::to_value(&repaired).unwrap();
    assert_eq!(json["entries"][0]["cachedInput"], 1.0);
    assert!(json["entries"][0].get("perImage").is_none());
}

fn reply(day: i64, model: &str, conversation: &str, used: Consumption) -> ReplyUse {
    ReplyUse {
        day,
        model: model.into(),
        conversation_id: conversation.into(),
        consumption: used,
    }
}

#[test]
fn the_ledger_sums_per_day_model_and_conversation_from_its_first_day() {
    let mut ledger = Ledger::new(Prices::default(), Some(100));
    ledger.add(&reply(99, "gpt-4o", "old", reported(1_000_000, 0, 0)));
    ledger.add(&reply(100, "gpt-4o", "a", reported(1_000_000, 0, 0)));
    ledger.add(&reply(102, "gpt-4o-mini", "a", reported(0, 0, 1_000_000)));
    ledger.add(&reply(102, "my-local", "b", reported(500, 0, 500)));
    let total = ledger.total();
    assert_eq!(total.replies, 3);
    assert_eq!((total.input, total.output), (1_000_500, 1_000_500));
    assert_eq!(total.unpriced, 1);
    assert!((total.cost.usd - (2.5 + 0.6)).abs() < 1e-9);
    let days = ledger.days(103);
    assert_eq!(
        days.iter()
            .map(|(d, s)| (*d, s.replies))
            .collect::<Vec<_>>(),
        [(100, 1), (101, 0), (102, 2), (103, 0)]
    );
    let models: Vec<String> = ledger.models().into_iter().map(|(m, _)| m).collect();
    assert_eq!(models, ["gpt-4o", "gpt-4o-mini", "my-local"]);
    let conversations = ledger.conversations(1);
    assert_eq!(conversations.len(), 1);
    assert_eq!(conversations[0].0, "a");
    assert_eq!(conversations[0].1.replies, 2);
    assert!(ledger.conversations(10).iter().all(|(c, _)| c != "old"));
}

#[test]
fn a_ledger_of_everything_starts_at_the_first_reply_and_marks_guesses() {
    let mut ledger = Ledger::new(Prices::default(), None);
    assert_eq!(ledger.days(50).len(), 1);
    let mut guessed = reported(10, 0, 10);
    guessed.output.estimated = true;
    ledger.add(&reply(48, "gpt-4o", "a", guessed));
    assert_eq!(ledger.days(50).first().map(|(d, _)| *d), Some(48));
    let total = ledger.total();
    assert!(total.estimated_tokens && total.cost.estimated);
    assert_eq!(total.tokens(), 20);
}

#[test]
fn counts_read_compactly_in_a_table() {
    let cases = [
        (0, "0"),
        (9_999, "9999"),
        (10_000, "10k"),
        (12_345, "12.3k"),
        (999_400, "999k"),
        (1_234_567, "1.23M"),
        (45_600_000, "45.6M"),
        (7_000_000_000, "7B"),
    ];
    for (count, text) in cases {
        assert_eq!(compact_count(count), text, "{count}");
    }
}

fn sonnet() -> Price {
    price_of("claude-sonnet-4-5").expect("a default").0
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn cache_writes_are_billed_at_their_own_rate_or_as_input_without_one() {
    let price = sonnet();
    assert_eq!(price.cache_write, Some(3.75));
    let used = Consumption {
        cache_write: Some(30_000),
        ..reported(100_000, 20_000, 0)
    };
    // 50k plain × 3 + 20k read × 0.3 + 30k written × 3.75 (per million)
    assert!(close(used.cost(&price).usd, 0.15 + 0.006 + 0.1125));
    let without = Price {
        cache_write: None,
        ..price
    };
    assert!(close(used.cost(&without).usd, 0.15 + 0.006 + 0.09));
    // More written than the uncached input (an odd report) is capped, never negative.
    let odd = Consumption {
        cache_write: Some(5_000_000),
        ..reported(1_000, 0, 0)
    };
    assert!(close(odd.cost(&price).usd, 1_000.0 * 3.75 / 1e6));
}

#[test]
fn the_providers_own_searches_cost_their_fee() {
    let mut used = reported(0, 0, 0);
    used.searches = 3;
    assert!(close(used.cost(&sonnet()).usd, 0.03));
    assert!(close(used.cost(&Price::tokens(1.0, 0.1, 1.0)).usd, 0.0));
    // xAI bills its live search per source used, which a reply does not report.
    assert_eq!(price_of("grok-4").unwrap().0.per_search, None);
}

#[test]
fn a_prompt_above_the_long_context_threshold_is_priced_at_the_higher_rates() {
    let price = sonnet();
    // One request of 250k tokens, 50k of them read from the cache, and 1k out.
    let one = reported(250_000, 50_000, 1_000);
    let cost = one.cost(&price);
    // 200k × 6 + 50k × 0.6 (the cache read rises with input) + 1k × 22.5
    assert!(close(cost.usd, 1.2 + 0.03 + 0.0225), "{cost:?}");
    assert!(!cost.estimated);
    // At the threshold exactly: the standard rates.
    let at = reported(200_000, 0, 1_000).cost(&price);
    assert!(close(at.usd, 0.6 + 0.015) && !at.estimated, "{at:?}");
    // Two requests of 150k each: below the threshold each, but a guess.
    let mut two = reported(300_000, 0, 0);
    two.requests = 2;
    let cost = two.cost(&price);
    assert!(close(cost.usd, 0.9) && cost.estimated, "{cost:?}");
    // Two requests of 250k each: above it each, still a guess.
    let mut long = reported(500_000, 0, 0);
    long.requests = 2;
    let cost = long.cost(&price);
    assert!(close(cost.usd, 3.0) && cost.estimated, "{cost:?}");
    // A model without a long-context price: the same rates whatever the length.
    let flat = reported(1_000_000, 0, 0).cost(&price_of("gpt-5").unwrap().0);
    assert!(close(flat.usd, 1.25) && !flat.estimated);
}

#[test]
fn every_price_is_kept_with_its_cache_search_and_long_context_rates() {
    let price = sonnet();
    let value = serde_json::to_value(price).unwrap();
    assert_eq!(value["cacheWrite"], serde_json::json!(3.75));
    assert_eq!(value["perSearch"], serde_json::json!(0.01));
    assert_eq!(
        value["longContext"],
        serde_json::json!({"above": 200_000, "input": 6.0, "output": 22.5})
    );
    assert_eq!(serde_json::from_value::<Price>(value).unwrap(), price);
    // A price stored before these existed reads with none of them.
    let old: Price =
        serde_json::from_value(serde_json::json!({"input": 1.0, "output": 2.0})).unwrap();
    assert_eq!(
        (old.cache_write, old.per_search, old.long_context),
        (None, None, None)
    );
    // Refusals are typed.
    let bad_threshold = Price {
        long_context: Some(LongContext {
            above: 0,
            input: 1.0,
            output: 1.0,
        }),
        ..price
    };
    assert_eq!(bad_threshold.check(), Err(PriceError::Threshold));
    let bad_fee = Price {
        per_search: Some(-1.0),
        ..price
    };
    assert_eq!(bad_fee.check(), Err(PriceError::Amount));
    let bad_tier = Price {
        long_context: Some(LongContext {
            above: 10,
            input: f64::NAN,
            output: 1.0,
        }),
        ..price
    };
    assert_eq!(bad_tier.check(), Err(PriceError::Amount));
}
