package org.lightwire.etf;

import java.util.ArrayList;
import java.util.List;

import org.jacorb.config.Configurable;
import org.jacorb.config.Configuration;
import org.jacorb.config.ConfigurationException;
import org.jacorb.orb.ProfileSelector;
import org.jacorb.orb.giop.ClientConnectionManager;
import org.omg.ETF.Profile;

/**
 * Picks the Lightwire profile of an IOR wherever it stands (when {@code jacorb.lightwire.prefer}
 * is true, the default), then the others in IOR order: so a Lightwire client calls a server that
 * has both profiles over Lightwire, and falls back to IIOP when the Lightwire connect fails with
 * TRANSIENT. Set it as {@code jacorb.transport.client.selector}. JacORB configures the selector
 * during {@code ORB.init}, so it also checks every {@code jacorb.lightwire.*} property there: a
 * bad value fails ORB initialisation rather than the first call.
 */
public final class LightwireProfileSelector implements ProfileSelector, Configurable
{
    private boolean prefer = true;

    @Override
    public void configure(final Configuration configuration) throws ConfigurationException
    {
        prefer = LightwireConfig.from(configuration).prefer();
    }

    @Override
    public Profile selectProfile(final List<Profile> profiles, final ClientConnectionManager ccm)
    {
        if (profiles == null || profiles.isEmpty())
        {
            return null;
        }
        return ordered(profiles).get(0);
    }

    @Override
    public Profile selectNextProfile(final List<Profile> profiles, final Profile last)
    {
        if (profiles == null || profiles.isEmpty())
        {
            return null;
        }
        final List<Profile> order = ordered(profiles);
        if (last == null)
        {
            return order.get(0);
        }
        final int index = order.indexOf(last);
        final Profile next = order.get((index + 1) % order.size());
        return next.equals(last) ? null : next;
    }

    private List<Profile> ordered(final List<Profile> profiles)
    {
        if (!prefer)
        {
            return profiles;
        }
        final List<Profile> order = new ArrayList<>(profiles.size());
        for (final Profile p : profiles)
        {
            if (p instanceof LightwireProfile)
            {
                order.add(p);
            }
        }
        for (final Profile p : profiles)
        {
            if (!(p instanceof LightwireProfile))
            {
                order.add(p);
            }
        }
        return order;
    }
}
