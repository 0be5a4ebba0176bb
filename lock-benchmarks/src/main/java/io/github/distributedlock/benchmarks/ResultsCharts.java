package io.github.distributedlock.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Ellipse2D;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.List;
import java.util.Map;

import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItemSource;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.ScatterRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.statistics.DefaultMultiValueCategoryDataset;

/**
 * Draws the charts of RESULTS.md with JFreeChart, as PNG files: grouped bars, one bar per series (a peer, or a
 * measure) in each category (a workload), as high as the median of the rounds, with each round's value as a dot
 * on it, so the spread shows. Stateless; runs headless.
 */
final class ResultsCharts {

	/** A peer's colour, the same in every chart. */
	private static final Map<String, Color> PEER_COLOURS = Map.of("ours", new Color(0x1f77b4), "redisson",
			new Color(0xff7f0e), "si-spin", new Color(0x2ca02c), "si-pubsub", new Color(0x9467bd), "floor",
			new Color(0x7f7f7f));

	/** The colours of other series, in their order. */
	private static final List<Color> COLOURS = List.of(new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x8c564b),
			new Color(0x17becf));

	private static final double ITEM_MARGIN = 0.05;

	/**
	 * One measured figure: its values, one per round, in a category and a series.
	 * @param category such as a workload ({@code W1})
	 * @param series such as a peer ({@code redisson})
	 * @param rounds the values, one per round; the bar shows their median
	 */
	record Figure(String category, String series, List<Double> rounds) {
	}

	/**
	 * What a chart shows and how.
	 * @param title the chart's title
	 * @param subtitle a line under it (what was measured, how to read it)
	 * @param valueAxis the value axis's label with its unit
	 * @param logarithmic whether the value axis is logarithmic (for values of different magnitudes)
	 * @param horizontal whether the bars lie (for long category names)
	 */
	record Chart(String title, String subtitle, String valueAxis, boolean logarithmic, boolean horizontal) {
	}

	private ResultsCharts() {
	}

	/**
	 * Draws a chart into a PNG file.
	 * @param file the file (its folder is made when missing)
	 * @param chart what to show
	 * @param figures the bars, in order: categories and series appear in the order they first occur; a series named
	 * for a peer ({@code ours}, {@code redisson}, ...) gets that peer's colour
	 * @param width the picture's width in pixels
	 * @param height its height in pixels
	 * @throws IOException if the file cannot be written
	 */
	static void draw(Path file, Chart chart, List<Figure> figures, int width, int height) throws IOException {
		System.setProperty("java.awt.headless", "true");
		DefaultCategoryDataset medians = new DefaultCategoryDataset();
		DefaultMultiValueCategoryDataset rounds = new DefaultMultiValueCategoryDataset();
		for (Figure figure : figures) {
			List<Double> values = figure.rounds().stream().filter((v) -> !v.isNaN() && (!chart.logarithmic() || v > 0)).toList();
			if (!values.isEmpty()) {
				medians.addValue(Spread.of(values).median(), figure.series(), figure.category());
				rounds.add(values, figure.series(), figure.category());
			}
		}
		BarRenderer bars = bars(medians.getRowKeys());
		// a bar starts at 0, which a logarithmic axis cannot show: the axis starts below the lowest bar instead
		bars.setIncludeBaseInRange(!chart.logarithmic());
		CategoryPlot plot = new CategoryPlot(medians, new CategoryAxis(), valueAxis(chart), bars);
		plot.setOrientation(chart.horizontal() ? PlotOrientation.HORIZONTAL : PlotOrientation.VERTICAL);
		plot.setDataset(1, rounds);
		plot.setRenderer(1, dots(rounds.getRowCount()));
		plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD);
		plot.setBackgroundPaint(Color.WHITE);
		plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
		if (!chart.horizontal() && medians.getColumnCount() > 6) {
			plot.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_45);
		}
		plot.getDomainAxis().setMaximumCategoryLabelLines(3);
		JFreeChart picture = new JFreeChart(chart.title(), new Font(Font.SANS_SERIF, Font.BOLD, 16), plot, true);
		picture.addSubtitle(new TextTitle(chart.subtitle(), new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
		picture.setBackgroundPaint(Color.WHITE);
		// the dots' series repeat the bars' in the legend: keep the bars' only
		picture.getLegend().setSources(new LegendItemSource[] { plot.getRenderer(0) });
		Files.createDirectories(file.toAbsolutePath().getParent());
		ChartUtils.saveChartAsPNG(file.toFile(), picture, width, height);
	}

	private static ValueAxis valueAxis(Chart chart) {
		if (chart.logarithmic()) {
			LogAxis axis = new LogAxis(chart.valueAxis());
			axis.setBase(10);
			axis.setNumberFormatOverride(new DecimalFormat("#,##0"));
			// a tick at each power of ten, nine minor ticks between
			axis.setTickUnit(new NumberTickUnit(1));
			axis.setMinorTickCount(9);
			axis.setMinorTickMarksVisible(true);
			return axis;
		}
		return new NumberAxis(chart.valueAxis());
	}

	private static BarRenderer bars(List<?> series) {
		BarRenderer bars = new BarRenderer();
		bars.setBarPainter(new StandardBarPainter());
		bars.setShadowVisible(false);
		bars.setItemMargin(ITEM_MARGIN);
		for (int s = 0; s < series.size(); s++) {
			bars.setSeriesPaint(s, PEER_COLOURS.getOrDefault(series.get(s).toString(), COLOURS.get(s % COLOURS.size())));
		}
		return bars;
	}

	private static ScatterRenderer dots(int series) {
		ScatterRenderer dots = new ScatterRenderer();
		dots.setUseSeriesOffset(true);
		dots.setItemMargin(ITEM_MARGIN);
		for (int s = 0; s < series; s++) {
			dots.setSeriesPaint(s, Color.BLACK);
			dots.setSeriesShape(s, new Ellipse2D.Double(-2.5, -2.5, 5, 5));
			dots.setSeriesOutlineStroke(s, new BasicStroke(1));
		}
		return dots;
	}

}
