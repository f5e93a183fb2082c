#!/usr/bin/python3
"""Entry point of `qacc validate` (the qacc binary runs this with Debian's /usr/bin/python3): see
scripts/validate/main.py and docs/validate.md."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from validate.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
