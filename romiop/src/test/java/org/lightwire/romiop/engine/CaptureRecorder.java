package org.lightwire.romiop.engine;

import java.util.List;

/** A StateHandler that records the cut of each capture it is asked for and answers none. */
final class CaptureRecorder implements StateHandler
{
    private final List<Long> captures;

    /** @param captures where each capture's cut is added. */
    CaptureRecorder(final List<Long> captures)
    {
        this.captures = captures;
    }

    @Override
    public void captureState(final long cut)
    {
        captures.add(cut);
    }

    @Override
    public void installState(final long cut, final byte[] state)
    {
    }

    @Override
    public void stateRefused(final String reason)
    {
    }
}
