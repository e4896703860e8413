"""The Memory tab's chart: the area that holds it (area.py), the chart widget (chart.py), what it plots from a
report's samples (plot.py) and the canvas it draws on (canvas.py)."""
