package org.lightwire.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.commons.math3.distribution.TDistribution;

/**
 * The results of {@link OrbBenchmark}: per scenario and size, one value per run and transport;
 * reported as the median over runs. {@code ratio} is always Lightwire over IIOP: below 1 is
 * better for latency, above 1 is better for throughput.
 *
 * <p>{@code summary.json} is an array with one object per scenario and size:
 * <pre>
 * {"scenario":"null_echo","calls":10000,"runs":3,
 *  "lightwire_median_us":..,"lightwire_p99_us":..,"iiop_median_us":..,"iiop_p99_us":..,"ratio":..,
 *  "per_run":{"lightwire_median_us":[..],"iiop_median_us":[..],"ratio":[..], ...}}
 * {"scenario":"oneway"|"exactly_once"|"struct_sequence","size_bytes":1024,"runs":3,
 *  "lightwire_mbps":..,"iiop_mbps":..,"ratio":..,
 *  "lightwire_offered_mbps":..,"lightwire_delivered_fraction":..,  (one-way only; same for iiop)
 *  "per_run":{...}}
 * </pre>
 * plus a final object {@code {"machine": "..."}}. With two runs or more, each row also has
 * {@code ratio_geomean}, the geometric mean of the per-run ratios, and {@code ratio_ci95_low} and
 * {@code _high}, its 95% confidence interval (Student's t on the logarithms of the ratios): the
 * runs of one size scatter by 10-20% on a shared VM, so whether Lightwire is below or above IIOP
 * at a size is whether that interval lies below or above 1.
 */
final class Summary
{
    /** One throughput measurement: delivered Mbit/s, offered Mbit/s, fraction of bytes delivered. */
    record Throughput(double mbps, double offeredMbps, double deliveredFraction)
    {
    }

    /** Values of one scenario and size, by field name, one per run. */
    static final class Row
    {
        final String scenario;
        final String sizeKey;
        final long size;
        final Map<String, List<Double>> values = new LinkedHashMap<>();

        Row(final String scenario, final String sizeKey, final long size)
        {
            this.scenario = scenario;
            this.sizeKey = sizeKey;
            this.size = size;
        }

        void add(final String field, final double value)
        {
            values.computeIfAbsent(field, k -> new ArrayList<>()).add(value);
        }

        double median(final String field)
        {
            final List<Double> v = values.get(field);
            return v == null ? Double.NaN : OrbBenchmark.median(v.stream().mapToDouble(Double::doubleValue).toArray());
        }

        /** @return geometric mean of the per-run ratios, and the low and high ends of its 95% interval (NaN below two runs). */
        double[] ratioInterval()
        {
            final List<Double> v = values.get("ratio");
            return v == null ? new double[] {Double.NaN, Double.NaN, Double.NaN} : geometricInterval(v);
        }
    }

    /**
     * @return the geometric mean of {@code values} (all positive) and the 95% confidence interval
     *     of it, from Student's t on their logarithms; NaN where there are fewer than two.
     */
    static double[] geometricInterval(final List<Double> values)
    {
        final int n = values.size();
        if (n < 2)
        {
            return new double[] {n == 1 ? values.get(0) : Double.NaN, Double.NaN, Double.NaN};
        }
        double sum = 0;
        for (final double v : values)
        {
            sum += Math.log(v);
        }
        final double mean = sum / n;
        double squares = 0;
        for (final double v : values)
        {
            squares += (Math.log(v) - mean) * (Math.log(v) - mean);
        }
        final double halfWidth = new TDistribution(n - 1).inverseCumulativeProbability(0.975) * Math.sqrt(squares / (n - 1) / n);
        return new double[] {Math.exp(mean), Math.exp(mean - halfWidth), Math.exp(mean + halfWidth)};
    }

    private final Map<String, Row> rows = new LinkedHashMap<>();

    private Row row(final String scenario, final String sizeKey, final long size)
    {
        return rows.computeIfAbsent(scenario + "/" + size, k -> new Row(scenario, sizeKey, size));
    }

    void addLatency(final String scenario, final int calls, final long[] lightwireNs, final long[] iiopNs)
    {
        final Row r = row(scenario, "calls", calls);
        final double lwMedian = percentileUs(lightwireNs, 0.5);
        final double iiopMedian = percentileUs(iiopNs, 0.5);
        r.add("lightwire_median_us", lwMedian);
        r.add("lightwire_p99_us", percentileUs(lightwireNs, 0.99));
        r.add("iiop_median_us", iiopMedian);
        r.add("iiop_p99_us", percentileUs(iiopNs, 0.99));
        r.add("ratio", lwMedian / iiopMedian);
        r.add("p99_ratio", percentileUs(lightwireNs, 0.99) / percentileUs(iiopNs, 0.99));
    }

    void addThroughput(final String scenario, final int sizeBytes, final String transport, final Throughput t)
    {
        final Row r = row(scenario, "size_bytes", sizeBytes);
        r.add(transport + "_mbps", t.mbps());
        if ("oneway".equals(scenario))
        {
            r.add(transport + "_offered_mbps", t.offeredMbps());
            r.add(transport + "_delivered_fraction", t.deliveredFraction());
        }
        final List<Double> lw = r.values.get(OrbBenchmark.LIGHTWIRE + "_mbps");
        final List<Double> iiop = r.values.get(OrbBenchmark.IIOP + "_mbps");
        if (lw != null && iiop != null && lw.size() == iiop.size())
        {
            r.add("ratio", lw.get(lw.size() - 1) / iiop.get(iiop.size() - 1));
        }
    }

    private static double percentileUs(final long[] ns, final double q)
    {
        final long[] sorted = ns.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int)(sorted.length * q))] / 1000.0;
    }

    /** @return the rows of one scenario, in size order. */
    List<Row> rows(final String scenario)
    {
        final List<Row> out = new ArrayList<>();
        for (final Row r : rows.values())
        {
            if (r.scenario.equals(scenario))
            {
                out.add(r);
            }
        }
        return out;
    }

    void writeJson(final Path file, final String machine) throws IOException
    {
        final StringBuilder b = new StringBuilder("[\n");
        for (final Row r : rows.values())
        {
            b.append("  {\"scenario\":\"").append(r.scenario).append("\",\"").append(r.sizeKey).append("\":").append(r.size);
            b.append(",\"runs\":").append(r.values.values().iterator().next().size());
            for (final String field : r.values.keySet())
            {
                b.append(",\"").append(field).append("\":").append(number(r.median(field)));
            }
            final double[] interval = r.ratioInterval();
            if (!Double.isNaN(interval[1]))
            {
                b.append(",\"ratio_geomean\":").append(number(interval[0]));
                b.append(",\"ratio_ci95_low\":").append(number(interval[1]));
                b.append(",\"ratio_ci95_high\":").append(number(interval[2]));
            }
            b.append(",\"per_run\":{");
            String sep = "";
            for (final Map.Entry<String, List<Double>> e : r.values.entrySet())
            {
                b.append(sep).append('"').append(e.getKey()).append("\":[");
                String s2 = "";
                for (final double v : e.getValue())
                {
                    b.append(s2).append(number(v));
                    s2 = ",";
                }
                b.append(']');
                sep = ",";
            }
            b.append("}},\n");
        }
        b.append("  {\"machine\":\"").append(machine.replace("\"", "'")).append("\"}\n]\n");
        Files.writeString(file, b);
    }

    private static String number(final double v)
    {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.4g", v) : "null";
    }

    void print(final PrintStream out)
    {
        for (final Row r : rows.values())
        {
            final StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-16s %8d", r.scenario, r.size));
            for (final String field : r.values.keySet())
            {
                b.append(String.format(Locale.ROOT, "  %s=%.3g %s", field, r.median(field), r.values.get(field).stream()
                    .map(v -> String.format(Locale.ROOT, "%.3g", v)).toList()));
            }
            final double[] interval = r.ratioInterval();
            if (!Double.isNaN(interval[1]))
            {
                b.append(String.format(Locale.ROOT, "  ratio_geomean=%.3f (95%%: %.3f..%.3f)", interval[0], interval[1], interval[2]));
            }
            out.println(b);
        }
    }
}
