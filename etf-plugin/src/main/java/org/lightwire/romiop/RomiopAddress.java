package org.lightwire.romiop;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

import org.jacorb.orb.CDRInputStream;
import org.jacorb.orb.CDROutputStream;
import org.jacorb.orb.etf.ProtocolAddressBase;

/**
 * A ROMIOP group's address: its name, its IP multicast address and port, and its members, leader
 * (the sequencer) first, each an id and, when fixed, a unicast host and port. The client needs
 * the member ids to know whose ACKs a request awaits; the fan-out link needs their addresses.
 *
 * <p>String form (also the address part of {@code corbaloc:romiop:}):
 * <pre>
 *   group@mcast-host:port+id[@host:port]+id[@host:port]...
 *   e.g. bank@239.255.0.1:5000+1+2+3     or     bank@0.0.0.0:0+1@10.0.0.1:5101+2@10.0.0.2:5101
 * </pre>
 * Members are joined by {@code +}, not by {@code ,} or {@code ;}: JacORB 3.9's corbaloc parser
 * takes any URL containing "miop" (so every {@code romiop:} URL) for MIOP, and then cuts the
 * address at the first {@code ;}.
 * The multicast part is {@code 0.0.0.0:0} for a group reached by fan-out only. On the wire
 * (inside the profile): string name, string multicast host, ushort port, ulong member count,
 * then per member ulong id, string host ("" when not fixed), ushort port (0).
 */
public final class RomiopAddress extends ProtocolAddressBase
{
    /** One member: an id and, when fixed, its unicast address. */
    public static final class Member
    {
        public final int id;
        public final String host;
        public final int port;

        public Member(final int id, final String host, final int port)
        {
            this.id = id;
            this.host = host;
            this.port = port;
        }

        /** @return the fixed unicast address, or null when the member's address is learned. */
        public InetSocketAddress resolve() throws UnknownHostException
        {
            return host.isEmpty() ? null : new InetSocketAddress(InetAddress.getByName(host), port);
        }

        @Override
        public boolean equals(final Object o)
        {
            return o instanceof Member && ((Member)o).id == id && ((Member)o).host.equals(host) && ((Member)o).port == port;
        }

        @Override
        public int hashCode()
        {
            return Objects.hash(id, host, port);
        }

        @Override
        public String toString()
        {
            return host.isEmpty() ? Integer.toString(id) : id + "@" + hostPort(host, port);
        }
    }

    private String group = "";
    private String multicastHost = "0.0.0.0";
    private int multicastPort;
    private List<Member> members = List.of();

    public RomiopAddress()
    {
    }

    public RomiopAddress(final String group, final String multicastHost, final int multicastPort, final List<Member> members)
    {
        this.group = group;
        this.multicastHost = multicastHost;
        this.multicastPort = multicastPort;
        this.members = List.copyOf(members);
    }

    /** @return true for a name that starts with a letter and has only letters, digits, '-', '_', '.'. */
    public static boolean validGroupName(final String name)
    {
        return name.matches("[A-Za-z][A-Za-z0-9._-]*");
    }

    public String group()
    {
        return group;
    }

    /** @return the multicast group socket address, or null for a fan-out-only group. */
    public InetSocketAddress multicast() throws UnknownHostException
    {
        return multicastPort == 0 ? null : new InetSocketAddress(InetAddress.getByName(multicastHost), multicastPort);
    }

    public List<Member> members()
    {
        return Collections.unmodifiableList(members);
    }

    /** @return every member id, leader first. */
    public int[] memberIds()
    {
        return members.stream().mapToInt(m -> m.id).toArray();
    }

    /** @return the leader's id: the first member. */
    public int leaderId()
    {
        return members.get(0).id;
    }

    @Override
    public String toString()
    {
        final StringBuilder b = new StringBuilder(group).append('@').append(hostPort(multicastHost, multicastPort));
        for (final Member m : members)
        {
            b.append('+').append(m);
        }
        return b.toString();
    }

    private static String hostPort(final String host, final int port)
    {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /**
     * Parses the string form.
     *
     * @return false when it is not of that form (the reason is in {@link #parseError(String)}).
     */
    @Override
    public boolean fromString(final String s)
    {
        return parseError(s) == null;
    }

    /**
     * Parses the string form into this address.
     *
     * @return null when it parsed, else what is wrong with it.
     */
    public String parseError(final String s)
    {
        final String[] parts = s.split("\\+", -1);
        final int at = parts[0].indexOf('@');
        if (at <= 0)
        {
            return "expected group@mcast-host:port, got '" + parts[0] + "'";
        }
        final String name = parts[0].substring(0, at);
        if (!validGroupName(name))
        {
            return "the group name '" + name + "' must start with a letter and have only letters, digits, '-', '_', '.'";
        }
        final String[] mcast = splitHostPort(parts[0].substring(at + 1));
        if (mcast == null)
        {
            return "expected mcast-host:port after the group name, got '" + parts[0].substring(at + 1) + "'";
        }
        final int mcastPort = Integer.parseInt(mcast[1]);
        final List<Member> list = new ArrayList<>();
        for (int i = 1; i < parts.length; i++)
        {
            final String p = parts[i];
            final int mAt = p.indexOf('@');
            final int id;
            try
            {
                id = Integer.parseInt(mAt < 0 ? p : p.substring(0, mAt));
            }
            catch (final NumberFormatException e)
            {
                return "a member is id or id@host:port, got '" + p + "'";
            }
            if (id < 1 || id >= RomiopConfig.FIRST_CLIENT_ID)
            {
                return "member id " + id + " is outside 1.." + (RomiopConfig.FIRST_CLIENT_ID - 1);
            }
            if (mAt < 0)
            {
                list.add(new Member(id, "", 0));
                continue;
            }
            final String[] hp = splitHostPort(p.substring(mAt + 1));
            if (hp == null || Integer.parseInt(hp[1]) == 0)
            {
                return "member " + id + ": expected host:port with a port from 1 to 65535, got '" + p.substring(mAt + 1) + "'";
            }
            list.add(new Member(id, hp[0], Integer.parseInt(hp[1])));
        }
        if (list.isEmpty())
        {
            return "the group " + name + " lists no members (append +id for each, leader first)";
        }
        if (list.stream().mapToInt(m -> m.id).distinct().count() != list.size())
        {
            return "a member id is listed twice in '" + s + "'";
        }
        group = name;
        multicastHost = mcast[0];
        multicastPort = mcastPort;
        members = List.copyOf(list);
        return null;
    }

    /** @return {host, port} with the port 0..65535, or null. */
    private static String[] splitHostPort(final String s)
    {
        final int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1)
        {
            return null;
        }
        String h = s.substring(0, colon);
        if (h.startsWith("[") && h.endsWith("]"))
        {
            h = h.substring(1, h.length() - 1);
        }
        try
        {
            final int p = Integer.parseInt(s.substring(colon + 1));
            return p < 0 || p > 65535 || h.isEmpty() ? null : new String[] {h, Integer.toString(p)};
        }
        catch (final NumberFormatException e)
        {
            return null;
        }
    }

    @Override
    public void write(final CDROutputStream s)
    {
        s.write_string(group);
        s.write_string(multicastHost);
        s.write_ushort((short)multicastPort);
        s.write_ulong(members.size());
        for (final Member m : members)
        {
            s.write_ulong(m.id);
            s.write_string(m.host);
            s.write_ushort((short)m.port);
        }
    }

    /** Reads what {@link #write} wrote; a member count beyond 64 is refused (the engine's limit). */
    static RomiopAddress read(final CDRInputStream s)
    {
        final String name = s.read_string();
        final String host = s.read_string();
        final int port = s.read_ushort() & 0xFFFF;
        final int count = s.read_ulong();
        if (count < 1 || count > 64)
        {
            throw new org.omg.CORBA.MARSHAL("ROMIOP profile of group " + name + " lists " + (count & 0xFFFF_FFFFL) + " members; 1 to 64 allowed");
        }
        final List<Member> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final int id = s.read_ulong();
            final String h = s.read_string();
            final int p = s.read_ushort() & 0xFFFF;
            list.add(new Member(id, h, p));
        }
        return new RomiopAddress(name, host, port, list);
    }

    @Override
    public ProtocolAddressBase copy()
    {
        final RomiopAddress copy = new RomiopAddress(group, multicastHost, multicastPort, members);
        copy.configuration = configuration;
        return copy;
    }

    @Override
    public boolean equals(final Object o)
    {
        if (!(o instanceof RomiopAddress))
        {
            return false;
        }
        final RomiopAddress a = (RomiopAddress)o;
        return a.group.equals(group) && a.multicastHost.equals(multicastHost) && a.multicastPort == multicastPort && a.members.equals(members);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(group, multicastHost, multicastPort, members);
    }
}
