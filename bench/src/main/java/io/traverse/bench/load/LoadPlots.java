package io.traverse.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * PNG plots of a load run (XChart), written by {@code --plots DIR}: the hub's memory against
 * connections held, the CDF of the chunk round trip, the round trip's p50 and p99 and the
 * throughput per connection against connections held. Files are named {@code load-MODE-memory.png} and so on.
 */
final class LoadPlots {
    private static final int WIDTH = 800;
    private static final int HEIGHT = 500;

    private LoadPlots() {}

    static void write(LoadResult r, Path folder) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Files.createDirectories(folder);
        String prefix = "load-" + r.options().mode() + "-";
        List<LoadResult.Point> points =
                r.steps().stream().filter(p -> p.held() > 0).toList();
        String setUp = r.options().chunk() + " B every " + r.options().intervalMillis() + " ms per connection";

        XYChart memory = chart("Hub memory against connections held (" + setUp + ")", "connections held", "MiB");
        memory.addSeries(
                        "hub RSS",
                        x(points),
                        points.stream().mapToDouble(p -> p.hubRss() / 1048576.0).toArray())
                .setMarker(SeriesMarkers.CIRCLE);
        List<LoadResult.Point> withHeap =
                points.stream().filter(p -> p.hubHeap() >= 0).toList();
        if (!withHeap.isEmpty()) {
            memory.addSeries(
                            "hub heap after full GC",
                            x(withHeap),
                            withHeap.stream()
                                    .mapToDouble(p -> p.hubHeap() / 1048576.0)
                                    .toArray())
                    .setMarker(SeriesMarkers.DIAMOND);
        }
        save(memory, folder.resolve(prefix + "memory"));

        List<double[]> cdf = r.latency().cdf();
        if (!cdf.isEmpty()) {
            XYChart latency = chart(
                    "Chunk round trip, CDF (" + r.held() + " connections held at most, " + setUp + ")",
                    "round trip (ms, log scale)",
                    "fraction of chunks at or below");
            latency.getStyler().setXAxisLogarithmic(true);
            latency.addSeries(
                            "round trip",
                            cdf.stream()
                                    .mapToDouble(p -> Math.max(p[0], 1) / 1000.0)
                                    .toArray(),
                            cdf.stream().mapToDouble(p -> p[1]).toArray())
                    .setMarker(SeriesMarkers.NONE);
            save(latency, folder.resolve(prefix + "latency-cdf"));
        }

        if (!points.isEmpty()) {
            XYChart rtt = chart(
                    "Chunk round trip against connections held (" + setUp + ")",
                    "connections held",
                    "round trip (ms, log scale)");
            rtt.getStyler().setYAxisLogarithmic(true);
            rtt.addSeries(
                            "p50",
                            x(points),
                            points.stream()
                                    .mapToDouble(p -> Math.max(p.p50Millis(), 0.01))
                                    .toArray())
                    .setMarker(SeriesMarkers.CIRCLE);
            rtt.addSeries(
                            "p99",
                            x(points),
                            points.stream()
                                    .mapToDouble(p -> Math.max(p.p99Millis(), 0.01))
                                    .toArray())
                    .setMarker(SeriesMarkers.DIAMOND);
            save(rtt, folder.resolve(prefix + "latency"));
        }

        XYChart throughput = chart(
                "Throughput per connection against connections held", "connections held", "bytes/s per connection");
        throughput
                .addSeries(
                        "measured",
                        x(points),
                        points.stream()
                                .mapToDouble(LoadResult.Point::perConnectionBytesPerSecond)
                                .toArray())
                .setMarker(SeriesMarkers.CIRCLE);
        double pace = r.options().chunk() * 1000.0 / r.options().intervalMillis();
        if (!points.isEmpty()) {
            throughput
                    .addSeries(
                            "pace",
                            new double[] {
                                points.get(0).held(),
                                points.get(points.size() - 1).held()
                            },
                            new double[] {pace, pace})
                    .setMarker(SeriesMarkers.NONE);
        }
        save(throughput, folder.resolve(prefix + "throughput"));
    }

    private static XYChart chart(String title, String xTitle, String yTitle) {
        XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(title)
                .xAxisTitle(xTitle)
                .yAxisTitle(yTitle)
                .build();
        chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
        return chart;
    }

    private static double[] x(List<LoadResult.Point> points) {
        return points.stream().mapToDouble(LoadResult.Point::held).toArray();
    }

    private static void save(XYChart chart, Path withoutSuffix) throws IOException {
        BitmapEncoder.saveBitmap(chart, withoutSuffix.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
