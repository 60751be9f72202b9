using System.Collections;
using System.Reflection;
using Akka.Actor;
using Akka.Remote;

namespace WebSocketCodec.Akka.PingPong.Run;

/// <summary>Counts the <c>Write</c> refusals of our transport's live associations in a system (each refusal stalls
/// the association while Akka buffers and retries). Neither Akka nor the transport exposes them, so this reads them by
/// reflection: Akka's remoting → its protocol transports → the wrapped <c>WebSocketTransport</c> → its associations'
/// internal <c>Refusals</c>. Null when any step is not there (another transport, or the internals changed): the page
/// then says "not observed", never 0.</summary>
public static class RefusalProbe
{
    private const BindingFlags Instance = BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic;

    /// <summary>The refusals so far of every live association of <paramref name="system"/>'s websocket transport.</summary>
    public static long? Count(ActorSystem system)
    {
        try
        {
            if (((ExtendedActorSystem)system).Provider is not IRemoteActorRefProvider provider
                || Read(provider.Transport, "_transportMapping") is not IDictionary mapping)
            {
                return null;
            }

            long? total = null;
            foreach (object? pairs in mapping.Values)
            {
                foreach (object? pair in (IEnumerable)pairs!)
                {
                    object? transport = pair?.GetType().GetProperty("ProtocolTransport", Instance)?.GetValue(pair);
                    while (transport is not null && transport.GetType().FullName != "WebSocketCodec.Akka.WebSocketTransport")
                    {
                        transport = Read(transport, "WrappedTransport");
                    }

                    if (transport is not null && Read(transport, "_associations") is IDictionary associations)
                    {
                        foreach (object? handle in associations.Keys)
                        {
                            if (handle?.GetType().GetProperty("Refusals", Instance)?.GetValue(handle) is long refusals)
                            {
                                total = (total ?? 0) + refusals; // null until one association is found: never a 0 from nothing
                            }
                        }
                    }
                }
            }

            return total;
        }
        catch (Exception)
        {
            return null;
        }
    }

    /// <summary>A field or property by name, on the type or a base type.</summary>
    private static object? Read(object target, string name)
    {
        for (Type? type = target.GetType(); type is not null; type = type.BaseType)
        {
            if (type.GetField(name, Instance | BindingFlags.DeclaredOnly) is { } field)
            {
                return field.GetValue(target);
            }

            if (type.GetProperty(name, Instance | BindingFlags.DeclaredOnly) is { } property)
            {
                return property.GetValue(target);
            }
        }

        return null;
    }
}
