package org.lightwire.romiop;

import java.io.IOException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jacorb.config.Configuration;
import org.jacorb.config.ConfigurationException;
import org.jacorb.orb.ParsedIOR;
import org.jacorb.orb.etf.FactoriesBase;
import org.jacorb.orb.etf.ProtocolAddressBase;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.INTERNAL;
import org.omg.ETF.Connection;
import org.omg.ETF.Listener;
import org.omg.ETF.Profile;
import org.omg.GIOP.Version;
import org.omg.IOP.IOR;
import org.omg.IOP.TaggedComponentSeqHolder;
import org.omg.IOP.TaggedProfile;
import org.omg.IOP.TaggedProfileHolder;

/**
 * JacORB's entry point to ROMIOP group invocations: list it in {@code jacorb.transport.factories}
 * (after {@code org.jacorb.orb.iiop.IIOPFactories}, so that ordinary IORs keep IIOP first). It
 * reads the {@code jacorb.lightwire.romiop.*} properties ({@link RomiopConfig}) and makes the
 * group connections (one {@link ClientGroup} per group per ORB), the replica's listener, group
 * profiles ({@link RomiopProfile#TAG}) and addresses.
 *
 * <p>corbaloc: {@code corbaloc:romiop:[1.2@]group@mcast-host:port+id[@host:port]+.../key}, e.g.
 * {@code corbaloc:romiop:1.2@bank@239.255.0.1:5000+1+2+3/counter}; the part after the version is
 * a {@link RomiopAddress}. JacORB 3.9 parses every URL that contains "miop" as MIOP and then hands
 * this factory the address with the key still attached; {@link #decode_corbaloc} cuts it off.
 */
public final class RomiopFactories extends FactoriesBase
{
    private static final String CORBALOC_PREFIX = "romiop:";
    private static final String ADDRESS_PREFIX = "romiop://";

    private RomiopConfig config;
    private final Map<RomiopAddress, ClientGroup> groups = new HashMap<>();
    /**
     * Groups this ORB had an end of before, none open now: the numbering the last end reached
     * ({@code {packet id, client seq}}), which a new end resumes when the client id is configured
     * (otherwise it takes a new random id).
     */
    private final Map<RomiopAddress, int[]> earlierEnds = new HashMap<>();
    /** In {@link #earlierEnds} while that end closes. */
    private static final int[] CLOSING = new int[0];
    private static final long CLOSING_WAIT_NS = TimeUnit.SECONDS.toNanos(5);
    private RomiopListener listener;

    final AtomicLong messagesDropped = new AtomicLong();
    final AtomicLong onewaysLost = new AtomicLong();
    final AtomicLong repliesDropped = new AtomicLong();
    /** Client groups closed because their last connection closed. */
    final AtomicLong groupsClosed = new AtomicLong();

    @Override
    public void configure(final Configuration configuration) throws ConfigurationException
    {
        super.configure(configuration);
        config = RomiopConfig.from(configuration);
    }

    RomiopConfig config()
    {
        if (config == null)
        {
            throw new INTERNAL("RomiopFactories used before JacORB configured it");
        }
        return config;
    }

    /**
     * @return this ORB's end of the group, opened on first use and shared by its connections; each
     *     caller holds it until it {@link #releaseClientGroup releases} it.
     */
    synchronized ClientGroup clientGroup(final RomiopAddress address) throws IOException
    {
        ClientGroup g = groups.get(address);
        if (g == null)
        {
            // JacORB closes a connection after any system exception in a reply (its default
            // jacorb.connection.client.disconnect_after_systemexception=on) and opens another for
            // the next call: the new end must not look to the members like the old one restarted.
            final RomiopConfig c = config();
            int[] earlier = earlierEnds.get(address);
            final long giveUpNs = System.nanoTime() + CLOSING_WAIT_NS;
            while (earlier == CLOSING && c.clientIdConfigured && System.nanoTime() - giveUpNs < 0)
            {
                // The last end with this id is still closing: its numbering is not final yet.
                try
                {
                    wait(TimeUnit.NANOSECONDS.toMillis(CLOSING_WAIT_NS) / 10 + 1);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while the group " + address.group() + "'s last end closed", e);
                }
                earlier = earlierEnds.get(address);
            }
            if (earlier == CLOSING && c.clientIdConfigured)
            {
                throw new IOException("the group " + address.group() + "'s last end with client id " + c.clientId + " did not close within " +
                    TimeUnit.NANOSECONDS.toMillis(CLOSING_WAIT_NS) + " ms");
            }
            final int id = earlier == null || c.clientIdConfigured ? c.clientId : RomiopConfig.randomClientId();
            g = new ClientGroup(address, c, id, earlier != null && c.clientIdConfigured ? earlier : null);
            earlierEnds.remove(address);
            groups.put(address, g);
        }
        g.users++;
        return g;
    }

    /**
     * A connection is done with its group (it closed, as every client connection does when its
     * ORB shuts down): the last one closes the group's link and driver thread.
     */
    void releaseClientGroup(final ClientGroup g)
    {
        synchronized (this)
        {
            if (--g.users > 0 || groups.get(g.address()) != g)
            {
                return;
            }
            groups.remove(g.address());
            earlierEnds.put(g.address(), CLOSING);
        }
        g.close();
        groupsClosed.incrementAndGet();
        synchronized (this)
        {
            // After close: the driver thread has ended, so the engine's numbering is final and visible here.
            earlierEnds.put(g.address(), g.numbering());
            notifyAll();
        }
    }

    /** @return client groups open in this ORB (one per group it calls while a connection uses it). */
    public synchronized int openClientGroups()
    {
        return groups.size();
    }

    @Override
    public int profile_tag()
    {
        return RomiopProfile.TAG;
    }

    @Override
    protected Connection create_connection_internal()
    {
        return new RomiopClientConnection(this);
    }

    @Override
    protected synchronized Listener create_listener_internal()
    {
        listener = new RomiopListener(this);
        return listener;
    }

    /** @return this ORB's listener (a replica), or null when it has none. */
    public synchronized RomiopListener listener()
    {
        return listener;
    }

    @Override
    protected ProtocolAddressBase create_address_internal()
    {
        return new RomiopAddress();
    }

    @Override
    public Profile demarshal_profile(final TaggedProfileHolder taggedProfile, final TaggedComponentSeqHolder components)
    {
        final RomiopProfile p = new RomiopProfile();
        configureResult(p);
        p.demarshal(taggedProfile, components);
        return p;
    }

    /**
     * @param corbaloc one corbaloc address without the key, {@code romiop:[1.2@]group@host:port+members}.
     * @return the profile, or null when the address is not ROMIOP's (never throws for a foreign
     *         one, so later factories get their turn).
     */
    @Override
    public Profile decode_corbaloc(final String corbaloc)
    {
        if (!corbaloc.toLowerCase(Locale.ROOT).startsWith(CORBALOC_PREFIX))
        {
            return null;
        }
        String rest = corbaloc.substring(CORBALOC_PREFIX.length());
        final int slash = rest.indexOf('/');
        if (slash >= 0)
        {
            rest = rest.substring(0, slash);
        }
        Version version = new Version((byte)1, (byte)2);
        final int at = rest.indexOf('@');
        if (at > 0 && Character.isDigit(rest.charAt(0)))
        {
            final String v = rest.substring(0, at);
            rest = rest.substring(at + 1);
            if (!v.matches("1\\.[0-2]"))
            {
                throw RomiopExceptions.badAddress(corbaloc, "GIOP " + v + " is not supported (1.0 to 1.2)");
            }
            version = new Version((byte)1, (byte)(v.charAt(2) - '0'));
        }
        final RomiopAddress address = new RomiopAddress();
        final String error = address.parseError(rest);
        if (error != null)
        {
            throw RomiopExceptions.badAddress(corbaloc, error + "; the form is romiop:1.2@group@239.255.0.1:5000+1+2+3");
        }
        configureResult(address);
        final RomiopProfile p = new RomiopProfile(address, new byte[0], version);
        configureResult(p);
        return p;
    }

    @Override
    public int match_tag(final String address)
    {
        return address != null && address.toLowerCase(Locale.ROOT).startsWith(ADDRESS_PREFIX) ? 0 : -1;
    }

    /** @return the address of {@code romiop://group@host:port+members}, or null for any other protocol. */
    @Override
    public ProtocolAddressBase create_protocol_address(final String address)
    {
        if (match_tag(address) < 0)
        {
            return null;
        }
        final RomiopAddress a = new RomiopAddress();
        if (!a.fromString(address.substring(ADDRESS_PREFIX.length())))
        {
            return null;
        }
        configureResult(a);
        return a;
    }

    /**
     * The documented call that makes a group reference on a replica: the same object with only its
     * ROMIOP profile, so a client that invokes it reaches the group whatever its profile selector.
     *
     * <p>It also names the object whose servant holds the replica's state: the first object
     * given to this call on a replica is the one whose {@code LightwireFT::Checkpointable}
     * {@code get_state} and {@code set_state} the group calls when a member joins past requests it
     * did not execute (one state object per replica; the group reference of any later object is
     * made as before, and its servant's state is not carried).
     *
     * @param object an object of a POA of this ORB, made after the ROMIOP listener started.
     * @throws BAD_PARAM when the object's IOR has no ROMIOP profile (no listener, or the POA
     *                   was created before the ORB listened).
     */
    public static org.omg.CORBA.Object groupReference(final org.omg.CORBA.ORB orb, final org.omg.CORBA.Object object)
    {
        final org.jacorb.orb.ORB jorb = (org.jacorb.orb.ORB)orb;
        final ParsedIOR parsed = new ParsedIOR(jorb, orb.object_to_string(object));
        final IOR ior = parsed.getIOR();
        final java.util.List<TaggedProfile> mine = new java.util.ArrayList<>();
        for (final TaggedProfile p : ior.profiles)
        {
            if (p.tag == RomiopProfile.TAG)
            {
                mine.add(p);
            }
        }
        if (mine.isEmpty())
        {
            throw new BAD_PARAM("ROMIOP: the object has no group profile: list " + RomiopFactories.class.getName() +
                " in jacorb.transport.factories and set " + RomiopConfig.GROUP + " on this replica", RomiopExceptions.MINOR_BAD_ADDRESS,
                org.omg.CORBA.CompletionStatus.COMPLETED_NO);
        }
        nameStateObject(of(orb), parsed);
        return jorb._getObject(new IOR(ior.type_id, mine.toArray(new TaggedProfile[0])));
    }

    /** Tells this replica's listener which object holds its state: the key clients reach through its group profile. */
    private static void nameStateObject(final RomiopFactories factories, final ParsedIOR parsed)
    {
        final RomiopListener listener = factories == null ? null : factories.listener();
        if (listener == null)
        {
            return;
        }
        for (final Profile p : parsed.getProfiles())
        {
            if (p instanceof RomiopProfile)
            {
                listener.stateObject(((RomiopProfile)p).get_object_key());
                return;
            }
        }
    }

    /** @return the ROMIOP factories of a JacORB ORB, or null when it was not configured with them. */
    public static RomiopFactories of(final org.omg.CORBA.ORB orb)
    {
        final Object f = ((org.jacorb.orb.ORB)orb).getTransportManager().getFactories(RomiopProfile.TAG);
        return f instanceof RomiopFactories ? (RomiopFactories)f : null;
    }

    /** @return a one-line summary of this ORB's client-side counters, for logs and test failures. */
    public synchronized String clientCounters()
    {
        final StringBuilder b = new StringBuilder("messagesDropped=").append(messagesDropped).append(", onewaysLost=").append(onewaysLost)
            .append(", repliesDropped=").append(repliesDropped).append(", groupsClosed=").append(groupsClosed);
        for (final ClientGroup g : groups.values())
        {
            b.append("; ").append(g);
        }
        return b.toString();
    }
}
