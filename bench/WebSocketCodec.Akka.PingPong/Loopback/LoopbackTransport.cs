using System.Collections.Concurrent;
using Akka.Actor;
using Akka.Configuration;
using Akka.Remote.Transport;

namespace WebSocketCodec.Akka.PingPong.Loopback;

/// <summary>A test-only Akka.Remote transport inside one process: associations are pairs of
/// <see cref="LoopbackAssociationHandle"/>s that hand payloads straight to each other, no bytes, no sockets. The
/// RemotePingPong ceiling: what is left of the time is Akka's own (serialization, the endpoint actors, dispatch).
/// HOCON: <c>akka.remote.loopback { transport-class = "WebSocketCodec.Akka.PingPong.Loopback.LoopbackTransport,
/// WebSocketCodec.Akka.PingPong", hostname = "127.0.0.1", port = 0 }</c>.</summary>
public sealed class LoopbackTransport : global::Akka.Remote.Transport.Transport
{
    private readonly string _host;
    private readonly int _configuredPort;
    private readonly ConcurrentDictionary<LoopbackAssociationHandle, byte> _handles = new();
    private readonly TaskCompletionSource<IAssociationEventListener> _associationListener = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private string? _key;
    private Address? _address;

    /// <summary>The constructor Akka.Remote calls with the transport's HOCON section.</summary>
    public LoopbackTransport(ActorSystem system, Config config)
    {
        ArgumentNullException.ThrowIfNull(config);
        System = system;
        Config = config;
        _host = config.GetString("hostname", "127.0.0.1") is { Length: > 0 } host ? host : "127.0.0.1";
        _configuredPort = config.GetInt("port", 0);
        SchemeIdentifier = "loopback";
        MaximumPayloadBytes = 128_000;
    }

    /// <inheritdoc />
    public override Task<(Address, TaskCompletionSource<IAssociationEventListener>)> Listen()
    {
        int port = _configuredPort != 0 ? _configuredPort : LoopbackRegistry.NextPort();
        string key = LoopbackRegistry.Key(_host, port);
        if (!LoopbackRegistry.TryAdd(key, this))
        {
            throw new InvalidOperationException($"loopback {key} is taken");
        }

        _key = key;
        _address = new Address(SchemeIdentifier, System.Name, _host, port);
        return Task.FromResult((_address, _associationListener));
    }

    /// <inheritdoc />
    public override bool IsResponsibleFor(Address remote) => true;

    /// <inheritdoc />
    public override async Task<AssociationHandle> Associate(Address remoteAddress)
    {
        ArgumentNullException.ThrowIfNull(remoteAddress);
        Address local = _address ?? throw new InvalidOperationException("associate before listen");
        if (remoteAddress.Host is not { } host || remoteAddress.Port is not { } port
            || !LoopbackRegistry.TryGet(LoopbackRegistry.Key(host, port), out LoopbackTransport? target) || target is null)
        {
            throw new InvalidAssociationException($"no loopback transport listens at {remoteAddress}");
        }

        var outbound = new LoopbackAssociationHandle(local, remoteAddress, this);
        var inbound = new LoopbackAssociationHandle(target._address!, local, target);
        LoopbackAssociationHandle.Pair(outbound, inbound);
        _handles.TryAdd(outbound, 0);
        target._handles.TryAdd(inbound, 0);
        IAssociationEventListener listener = await target._associationListener.Task.ConfigureAwait(false);
        listener.Notify(new InboundAssociation(inbound));
        return outbound;
    }

    /// <inheritdoc />
    public override Task<bool> Shutdown()
    {
        if (_key is not null)
        {
            LoopbackRegistry.Remove(_key, this);
        }

        foreach (LoopbackAssociationHandle handle in _handles.Keys)
        {
            handle.Close(notifyPeer: true);
        }

        return Task.FromResult(true);
    }

    internal void Forget(LoopbackAssociationHandle handle) => _handles.TryRemove(handle, out _);
}
