package org.lightwire.etf;

import org.jacorb.orb.CDRInputStream;
import org.jacorb.orb.CDROutputStream;
import org.jacorb.orb.TaggedComponentList;
import org.jacorb.orb.etf.ProfileBase;
import org.jacorb.orb.etf.ProtocolAddressBase;
import org.omg.ETF.Profile;
import org.omg.GIOP.Version;
import org.omg.GIOP.VersionHelper;

/**
 * A profile that names one address (a Lightwire server, a ROMIOP group): equal profiles name the
 * same address whatever their object keys, so that JacORB shares one connection among all the
 * objects behind it ({@code docs/notes/jacorb-etf.md} section 6); clones are deep, because the
 * ORB mutates copies. The address profile is, as IIOP's, the GIOP version then the address.
 *
 * @param <A> the address type.
 */
public abstract class AddressedProfile<A extends ProtocolAddressBase> extends ProfileBase
{
    protected A address;

    /** An empty profile, filled by {@code demarshal}. */
    protected AddressedProfile()
    {
        this.components = new TaggedComponentList();
    }

    protected AddressedProfile(final A address, final byte[] objectKey, final Version version)
    {
        this.address = address;
        this.objectKey = objectKey;
        this.version = version;
        this.components = new TaggedComponentList();
    }

    public A address()
    {
        return address;
    }

    /** Reads what the address's {@code write} wrote. */
    protected abstract A readAddress(CDRInputStream stream);

    /** @return the corbaloc protocol name, e.g. {@code lw}. */
    protected abstract String corbalocProtocol();

    @Override
    public final void writeAddressProfile(final CDROutputStream stream)
    {
        VersionHelper.write(stream, version);
        address.write(stream);
    }

    @Override
    public final void readAddressProfile(final CDRInputStream stream)
    {
        version = VersionHelper.read(stream);
        address = readAddress(stream);
    }

    /** @return the corbaloc address form, {@code protocol:1.2@address}. */
    @Override
    public String toString()
    {
        return corbalocProtocol() + ":" + (version == null ? "" : version.major + "." + version.minor + "@") + address;
    }

    @Override
    public int hash()
    {
        return hashCode();
    }

    @Override
    public boolean is_match(final Profile other)
    {
        return equals(other);
    }

    @Override
    public boolean equals(final Object other)
    {
        return other != null && other.getClass() == getClass() && address != null && address.equals(((AddressedProfile<?>)other).address);
    }

    @Override
    public int hashCode()
    {
        return address == null ? 0 : address.hashCode();
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object clone() throws CloneNotSupportedException
    {
        final AddressedProfile<A> copy = (AddressedProfile<A>)super.clone();
        copy.address = address == null ? null : (A)address.copy();
        copy.objectKey = objectKey == null ? null : objectKey.clone();
        copy.version = version == null ? null : new Version(version.major, version.minor);
        copy.components = components == null ? new TaggedComponentList() : (TaggedComponentList)components.clone();
        return copy;
    }
}
