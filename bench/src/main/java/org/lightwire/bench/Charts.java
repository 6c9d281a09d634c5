package org.lightwire.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the paper's Figures 10, 11 and 12 from a {@link Summary}: throughput (median over runs)
 * against sequence size on a log-2 axis, Lightwire and IIOP, one PNG each. XChart renders
 * headless (no display needed).
 */
final class Charts
{
    private Charts()
    {
    }

    static void draw(final Summary summary, final Path dir, final String machine) throws IOException
    {
        System.setProperty("java.awt.headless", "true");
        chart(summary, "oneway", "Figure 10: one-way ttcp (delivered)", dir.resolve("fig10-oneway.png"), machine);
        chart(summary, "exactly_once", "Figure 11: exactly-once ttcp", dir.resolve("fig11-exactly-once.png"), machine);
        chart(summary, "struct_sequence", "Figure 12: marshalled struct sequence", dir.resolve("fig12-struct-sequence.png"), machine);
    }

    private static void chart(final Summary summary, final String scenario, final String title, final Path file, final String machine)
        throws IOException
    {
        final List<Summary.Row> rows = summary.rows(scenario);
        if (rows.isEmpty())
        {
            return;
        }
        final double[] kib = new double[rows.size()];
        final double[] lw = new double[rows.size()];
        final double[] iiop = new double[rows.size()];
        for (int i = 0; i < rows.size(); i++)
        {
            final Summary.Row r = rows.get(i);
            kib[i] = r.size / 1024.0;
            lw[i] = r.median(OrbBenchmark.LIGHTWIRE + "_mbps");
            iiop[i] = r.median(OrbBenchmark.IIOP + "_mbps");
        }
        final XYChart c = new XYChartBuilder().width(800).height(500).title(title)
            .xAxisTitle("sequence size (KiB)").yAxisTitle("throughput (Mbit/s)").build();
        c.getStyler().setXAxisLogarithmic(true);
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        c.getStyler().setChartTitleFont(c.getStyler().getChartTitleFont().deriveFont(14f));
        final XYSeries a = c.addSeries("Lightwire/UDP", kib, lw);
        a.setMarker(SeriesMarkers.CIRCLE);
        final XYSeries b = c.addSeries("IIOP/TCP", kib, iiop);
        b.setMarker(SeriesMarkers.SQUARE);
        c.setTitle(title + " (median of " + rows.get(0).values.values().iterator().next().size() + " runs; " + shortMachine(machine) + ")");
        BitmapEncoder.saveBitmap(c, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    private static String shortMachine(final String machine)
    {
        final int comma = machine.indexOf(", Linux");
        return comma > 0 ? machine.substring(0, comma) : machine;
    }
}
