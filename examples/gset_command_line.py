"""Private Max-Cut of a G-set format file from the command line (the `dpgraph` command).

Run: python examples/gset_command_line.py
Equivalent shell command: dpgraph maxcut dpgraph/datasets/data/planted-cut-n200-d16.txt --epsilon 1 --delta 1e-6
"""

import subprocess
import sys
from pathlib import Path

here = Path(__file__).resolve().parent.parent
instance = here / "dpgraph" / "datasets" / "data" / "planted-cut-n200-d16.txt"
cmd = [sys.executable, "-m", "dpgraph", "maxcut", str(instance), "--epsilon", "1",
       "--delta", "1e-6"]
print("$", " ".join(cmd[2:]))
done = subprocess.run(cmd, check=True, capture_output=True, text=True)
print(done.stdout)
