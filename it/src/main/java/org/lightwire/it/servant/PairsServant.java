package org.lightwire.it.servant;

import org.lightwire.it.idl.lwtest.Pair;
import org.lightwire.it.idl.lwtest.pairsPOA;

/** Transforms sequences of structs so that a test can check every element came back. */
public final class PairsServant extends pairsPOA
{
    @Override
    public Pair[] reverseAndSwap(final Pair[] input)
    {
        final Pair[] output = new Pair[input.length];
        for (int i = 0; i < input.length; i++)
        {
            final Pair p = input[input.length - 1 - i];
            output[i] = new Pair(p.b, p.a);
        }
        return output;
    }

    @Override
    public long sumOfDifferences(final Pair[] input)
    {
        long sum = 0;
        for (final Pair p : input)
        {
            sum += (long)p.a - p.b;
        }
        return sum;
    }
}
