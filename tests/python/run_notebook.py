# SPDX-License-Identifier: GPL-3.0-or-later
"""Executes a notebook of examples/ as Jupyter would (nbconvert's ExecutePreprocessor, the python3
kernel of ipykernel, the notebook's folder as working directory) and writes the executed copy.

    run_notebook.py NOTEBOOK OUTPUT

Exit status: 0 when every cell ran and the notebook drew at least one figure, 1 when a cell
raised (nbconvert prints the cell and the traceback) or nothing was drawn, 77 (skipped) where
nbconvert or ipykernel is not installed (Debian: python3-nbconvert python3-ipykernel).
"""
import sys
from pathlib import Path


def main():
    try:
        import nbformat
        from nbconvert.preprocessors import CellExecutionError, ExecutePreprocessor
        import ipykernel  # noqa: F401 (the kernel the notebook runs in)
    except ImportError as missing:
        print(f"skipped: {missing} (install python3-nbconvert python3-ipykernel)")
        return 77
    source, output = Path(sys.argv[1]), Path(sys.argv[2])
    notebook = nbformat.read(source, as_version=4)
    runner = ExecutePreprocessor(timeout=600, kernel_name="python3")
    try:
        runner.preprocess(notebook, {"metadata": {"path": str(source.parent)}})
    except CellExecutionError as error:
        print(error)
        return 1
    finally:
        output.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, output)
    figures = sum("image/png" in out.get("data", {})
                  for cell in notebook.cells if cell.cell_type == "code"
                  for out in cell.get("outputs", []))
    print(f"{source.name}: {len(notebook.cells)} cells ran, {figures} figure(s); "
          f"executed copy: {output}")
    return 0 if figures else 1


if __name__ == "__main__":
    sys.exit(main())
