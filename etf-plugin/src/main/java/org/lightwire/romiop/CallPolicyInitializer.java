package org.lightwire.romiop;

import org.omg.CORBA.LocalObject;
import org.omg.IOP.ServiceContext;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ClientRequestInterceptor;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitInfoPackage.DuplicateName;
import org.omg.PortableInterceptor.ORBInitializer;

/**
 * Registers the client interceptor that puts the policy of {@link CallPolicy#with} into each
 * request made inside it. Turn it on with the property
 * {@code org.omg.PortableInterceptor.ORBInitializerClass.org.lightwire.romiop.CallPolicyInitializer=}.
 */
public final class CallPolicyInitializer extends LocalObject implements ORBInitializer
{
    private static final long serialVersionUID = 1L;

    @Override
    public void pre_init(final ORBInitInfo info)
    {
        try
        {
            info.add_client_request_interceptor(new Interceptor());
        }
        catch (final DuplicateName e)
        {
            throw new org.omg.CORBA.INITIALIZE("ROMIOP: the call policy interceptor is registered twice: " + e.name);
        }
    }

    @Override
    public void post_init(final ORBInitInfo info)
    {
    }

    private static final class Interceptor extends LocalObject implements ClientRequestInterceptor
    {
        private static final long serialVersionUID = 1L;

        @Override
        public void send_request(final ClientRequestInfo ri)
        {
            final String spec = CallPolicy.current();
            if (spec != null)
            {
                ri.add_request_service_context(new ServiceContext(CallPolicy.SERVICE_CONTEXT_ID, CallPolicy.encode(spec)), true);
            }
        }

        @Override
        public void send_poll(final ClientRequestInfo ri)
        {
        }

        @Override
        public void receive_reply(final ClientRequestInfo ri)
        {
        }

        @Override
        public void receive_exception(final ClientRequestInfo ri)
        {
        }

        @Override
        public void receive_other(final ClientRequestInfo ri)
        {
        }

        @Override
        public String name()
        {
            return "lightwire.romiop.CallPolicy";
        }

        @Override
        public void destroy()
        {
        }
    }
}
