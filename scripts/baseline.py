"""The baseline report, as `wherein baseline` prints it, from a checkout.

    python scripts/baseline.py [--ledger FILE] [--since DAY] [--until DAY] [--project TEXT]
                               [--json] [--ccusage-rules]

`--ccusage-rules` re-reads the same ledgers under ccusage's documented rules (the first
streamed line of a Claude response wins; 1-hour cache writes priced at the 5-minute rate), so
the two tools' totals can be compared on the same data.
"""

from __future__ import annotations

import argparse
import json
import sys

from wherein.errors import WhereinError
from wherein.meter import build_baseline, format_report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="baseline.py", description=__doc__.split("\n")[0])
    parser.add_argument("--ledger", action="append", metavar="FILE", help="a JSONL ledger")
    parser.add_argument("--since", help="from this day (YYYY-MM-DD, UTC) or ISO time")
    parser.add_argument("--until", help="to this day, inclusive, or ISO time")
    parser.add_argument("--project", help="only requests whose project path contains this")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--ccusage-rules",
        action="store_true",
        help="first streamed line wins and 1-hour cache writes at the 5-minute rate",
    )
    args = parser.parse_args(argv)
    try:
        summary = build_baseline(
            args.ledger or (),
            since=args.since,
            until=args.until,
            project=args.project,
            dedupe="first" if args.ccusage_rules else "largest",
            one_hour_as_5m=args.ccusage_rules,
        )
    except WhereinError as err:
        print(f"baseline.py: {err}", file=sys.stderr)
        return err.exit_code
    if args.json:
        sys.stdout.write(json.dumps(summary, ensure_ascii=False, allow_nan=False) + "\n")
    else:
        sys.stdout.write(format_report(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
