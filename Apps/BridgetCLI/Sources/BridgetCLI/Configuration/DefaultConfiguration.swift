/// The default configuration, embedded so `bridget` works from any folder with no file at all.
///
/// It is the text of `Config/bridget.yaml`, byte for byte; a test fails if the two drift apart.
enum DefaultConfiguration {
    /// How `config show` names this source.
    static let origin = "(embedded default)"

    /// The YAML text.
    static let yaml = """
# Bridget's default configuration: synthetic sample data, serial analysis, a local SQLite file.
# Works offline. Any key can be overridden by an environment variable named BRIDGET_ followed by its path
# in capitals with underscores, e.g. BRIDGET_STORE_PATH=/tmp/b.sqlite or BRIDGET_PROVIDER_SAMPLE_SEED=7.
# `bridget config show` prints every key with its value and where the value came from.

provider:
  kind: sample              # sample: realistic synthetic openings, generated locally
  sample:
    seed: 42                # the same seed and days give identical rows
    days: 365               # days of history, ending with end_date
    end_date: null          # YYYY-MM-DD (Seattle); null means yesterday
    invalid_rate: 0.002     # share of openings written as a row that breaks a validation rule
    page_size: 5000         # rows per page

processor:
  kind: serial

store:
  kind: sqlite              # sqlite | memory
  path: null                # null means $XDG_DATA_HOME/bridget/bridget.sqlite (~/.local/share/bridget/...)

sync:
  batch_size: 5000          # events written per transaction
  overlap_hours: 48         # an incremental sync re-reads this much before the newest stored opening

validation:
  max_distance_meters: 1000 # rows whose coordinates lie farther from their bridge are rejected

"""
}
