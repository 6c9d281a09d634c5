package org.lightwire.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class SummaryTest
{
    /** Student's t, 1 degree of freedom, 97.5th percentile. */
    private static final double T_1 = 12.706204736174705;
    /** Student's t, 3 degrees of freedom, 97.5th percentile. */
    private static final double T_3 = 3.182446305284263;

    @Test
    void theIntervalOfTwoRatiosIsTheTIntervalOfTheirLogarithms()
    {
        // ln(1/2) and ln(2): mean 0, standard error ln(2).
        final double[] g = Summary.geometricInterval(List.of(0.5, 2.0));

        assertEquals(1.0, g[0], 1e-12);
        assertEquals(Math.pow(2, -T_1), g[1], 1e-8 * Math.pow(2, -T_1));
        assertEquals(Math.pow(2, T_1), g[2], 1e-8 * Math.pow(2, T_1));
    }

    @Test
    void fourRatios()
    {
        // Logarithms ln(2) * {1, 1, -1, 3}: mean ln(2), sample variance 8/3 ln(2)^2, standard error sqrt(2/3) ln(2).
        final double[] g = Summary.geometricInterval(List.of(2.0, 2.0, 0.5, 8.0));
        final double half = T_3 * Math.sqrt(2.0 / 3.0);

        assertEquals(2.0, g[0], 1e-12);
        // commons-math's t quantile is exact to about 1e-9, relative.
        assertEquals(Math.pow(2, 1 - half), g[1], 1e-8 * Math.pow(2, 1 - half));
        assertEquals(Math.pow(2, 1 + half), g[2], 1e-8 * Math.pow(2, 1 + half));
    }

    @Test
    void equalRatiosHaveNoSpread()
    {
        final double[] g = Summary.geometricInterval(List.of(0.9, 0.9, 0.9));

        assertEquals(0.9, g[0], 1e-12);
        assertEquals(0.9, g[1], 1e-12);
        assertEquals(0.9, g[2], 1e-12);
    }

    @Test
    void oneRunHasNoInterval()
    {
        final double[] g = Summary.geometricInterval(List.of(1.25));

        assertEquals(1.25, g[0]);
        assertTrue(Double.isNaN(g[1]) && Double.isNaN(g[2]));
    }
}
