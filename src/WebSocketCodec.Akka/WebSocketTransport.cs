using System.Buffers;
using System.Collections.Concurrent;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using Akka.Actor;
using Akka.Configuration;
using Akka.Event;
using Akka.Remote.Transport;
using Akka.Util;
using Microsoft.Extensions.DependencyInjection;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Akka;

/// <summary>An Akka.Remote transport whose associations are websockets: reach for it when remoting must cross what
/// passes HTTP but not raw TCP (load balancers, HTTP proxies, TLS terminators) or share a port with an ASP.NET Core
/// application. One binary message per Akka PDU, over HTTP/1.1 upgrades or HTTP/2 streams (RFC 8441), cleartext or
/// TLS.</summary>
/// <remarks>Enabled by HOCON only: <c>akka.remote.enabled-transports = ["akka.remote.websocket"]</c> with
/// <c>akka.remote.websocket.transport-class = "WebSocketCodec.Akka.WebSocketTransport, WebSocketCodec.Akka"</c> (every
/// other key has a default; see <see cref="DefaultConfig"/>). Addresses read <c>akka.ws://System@host:port</c>
/// (<c>akka.wss://</c> with TLS). Self-hosted, it binds a Kestrel listener of its own; given a
/// <see cref="WebSocketRemotingSetup"/> with an ASP.NET Core application's services, it is served by that application's
/// <see cref="AkkaRemotingEndpointExtensions.MapAkkaRemoting"/> endpoint instead.</remarks>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "Akka owns a transport's lifetime and ends it with Shutdown, which cancels the token source; nothing is left to dispose.")]
public sealed class WebSocketTransport : global::Akka.Remote.Transport.Transport
{
    private readonly WebSocketTransportSettings _settings;
    private readonly WebSocketRemotingSetup? _setup;
    private readonly ILoggingAdapter _log;
    private readonly WebSocketClientOptions _clientOptions;
    private readonly TaskCompletionSource<IAssociationEventListener> _associationListener = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly CancellationTokenSource _shutdown = new();
    private readonly ConcurrentDictionary<WebSocketAssociationHandle, Task> _associations = new();
    private readonly Lazy<HttpMessageInvoker> _http2;
    private readonly Lazy<X509Certificate2?> _ownCertificate;
    private SelfHostedListener? _listener;
    private AkkaRemotingHub? _hub;
    private Address? _localAddress;

    /// <summary>Called by Akka.Remote with the transport's configuration section (akka.remote.websocket).</summary>
    public WebSocketTransport(ActorSystem system, Config config)
    {
        ArgumentNullException.ThrowIfNull(system);
        System = system;
        Config = config;
        _settings = new WebSocketTransportSettings(config);
        _setup = system.Settings.Setup.Get<WebSocketRemotingSetup>().GetOrElse(null!);
        _log = Logging.GetLogger(system, GetType());
        SchemeIdentifier = _settings.Scheme;
        MaximumPayloadBytes = _settings.MaximumFrameSize;
        _ownCertificate = new Lazy<X509Certificate2?>(OwnCertificate);
        _clientOptions = new WebSocketClientOptions
        {
            Session = _settings.SessionOptions(),
            HandshakeTimeout = _settings.ConnectionTimeout + TimeSpan.FromSeconds(1), // a backstop: Associate's own timer ends first
            Tls = _settings.Tls ? OutboundTls.Create(_setup?.ClientTls, _settings.SuppressValidation, ClientCertificate()) : null,
            Proxy = _settings.Proxy?.ToWebProxy(),
        };
        _http2 = new Lazy<HttpMessageInvoker>(() => new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler(_clientOptions)));
    }

    /// <summary>The defaults (reference.conf), under <c>akka.remote.websocket</c>: add them as a fallback to see every
    /// key in one place; the transport applies them itself.</summary>
    public static Config DefaultConfig => WebSocketTransportSettings.FullDefaults;

    /// <summary>Binds (self-hosted) or joins the application's endpoint, and returns this node's address.</summary>
    public override async Task<(Address, TaskCompletionSource<IAssociationEventListener>)> Listen()
    {
        int port;
        if (_setup?.Services is { } services)
        {
            _hub = services.GetService<AkkaRemotingHub>()
                ?? throw new InvalidOperationException("Endpoint mode needs services.AddAkkaRemoting() and app.MapAkkaRemoting() in the application.");
            if (_hub.Path is { } mapped && !string.Equals(mapped, _settings.Path, StringComparison.Ordinal))
            {
                _log.Warning("akka.remote.websocket.path is {0} but the application maps Akka remoting at {1}: other nodes use the path setting", _settings.Path, mapped);
            }

            port = _settings.Port != 0 ? _settings.Port : _hub.BoundPort()
                ?? throw new InvalidOperationException(
                    "Endpoint mode with port = 0 before the application listens: set akka.remote.websocket.port to the application's port "
                    + "(WebSocketRemotingOptions.Port with Akka.Hosting, which starts the actor system before the application binds), "
                    + "or create the actor system after the application started.");
        }
        else
        {
            _listener = await SelfHostedListener.StartAsync(_settings, _settings.Tls ? ServerCertificate() : null).ConfigureAwait(false);
            _hub = _listener.Hub;
            port = _listener.Port;
        }

        _hub.Register(System.Name, this);
        _localAddress = new Address(SchemeIdentifier, System.Name, _settings.AdvertisedHost(), _settings.PublicPort != 0 ? _settings.PublicPort : port);
        return (_localAddress, _associationListener);
    }

    /// <summary>Any address of this transport's scheme.</summary>
    public override bool IsResponsibleFor(Address remote) => true;

    /// <summary>Opens a websocket to <c>{ws|wss}://host:port{path}/{system}</c>; fails with
    /// <see cref="InvalidAssociationException"/> on refusal, timeout or a bad handshake.</summary>
    public override async Task<AssociationHandle> Associate(Address remoteAddress)
    {
        ArgumentNullException.ThrowIfNull(remoteAddress);
        if (remoteAddress.Host is null || remoteAddress.Port is null)
        {
            throw new InvalidAssociationException($"{remoteAddress} has no host and port.");
        }

        Address local = _localAddress ?? throw new InvalidOperationException("Associate before Listen.");
        string host = remoteAddress.Host.Contains(':', StringComparison.Ordinal) ? $"[{remoteAddress.Host}]" : remoteAddress.Host;
        var uri = new Uri($"{(_settings.Tls ? "wss" : "ws")}://{host}:{remoteAddress.Port}{_settings.Path}/{Uri.EscapeDataString(remoteAddress.System)}");
        WebSocketConnection websocket;
        using (var timeout = CancellationTokenSource.CreateLinkedTokenSource(_shutdown.Token))
        {
            timeout.CancelAfter(_settings.ConnectionTimeout);
            try
            {
                websocket = _settings.Http2
                    ? await WebSocketHttp2Client.ConnectAsync(_http2.Value, uri, _clientOptions, timeout.Token).ConfigureAwait(false)
                    : await WebSocketClient.ConnectAsync(uri, _clientOptions, timeout.Token).ConfigureAwait(false);
            }
            catch (Exception error) when (error is not OutOfMemoryException)
            {
                string why = timeout.IsCancellationRequested && !_shutdown.IsCancellationRequested
                    ? $"no websocket within the connection-timeout of {_settings.ConnectionTimeout}"
                    : error.Message;
                throw new InvalidAssociationException($"Failed to associate with {remoteAddress} at {uri}: {why}", error);
            }
        }

        var handle = new WebSocketAssociationHandle(local, remoteAddress, websocket, this, _settings.WireLimit);
        AkkaTelemetry.Associations.Add(1, AkkaTelemetry.Outbound);
        _ = Run(handle, disposeAfter: true);
        return handle;
    }

    /// <summary>Closes every association with 1001 (waiting up to the close timeout for them to end) and unbinds.</summary>
    public override async Task<bool> Shutdown()
    {
        if (_shutdown.IsCancellationRequested)
        {
            return true;
        }

        _hub?.Unregister(System.Name, this);
        _associationListener.TrySetCanceled();
        foreach (WebSocketAssociationHandle handle in _associations.Keys)
        {
            handle.Close(CloseStatus.GoingAway, "actor system shutting down");
        }

        try
        {
            await Task.WhenAll(_associations.Values).WaitAsync(_settings.CloseTimeout + TimeSpan.FromSeconds(1)).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            foreach (WebSocketAssociationHandle handle in _associations.Keys)
            {
                handle.WebSocket.Abort();
            }
        }

        await _shutdown.CancelAsync().ConfigureAwait(false);
        if (_listener is not null)
        {
            await _listener.DisposeAsync().ConfigureAwait(false);
        }

        if (_http2.IsValueCreated)
        {
            _http2.Value.Dispose();
        }

        return true;
    }

    /// <summary>An inbound websocket (from the endpoint): announced as an inbound association once Akka has set the
    /// association listener, then run until it ends.</summary>
    internal async Task RunInboundAsync(WebSocketConnection websocket, string? remoteHost, int remotePort)
    {
        IAssociationEventListener listener;
        try
        {
            listener = await _associationListener.Task.WaitAsync(_shutdown.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            await websocket.CloseAsync(CloseStatus.GoingAway, "actor system shutting down").ConfigureAwait(false);
            return;
        }

        var remote = new Address(SchemeIdentifier, System.Name, remoteHost ?? "unknown", remotePort);
        var handle = new WebSocketAssociationHandle(_localAddress!, remote, websocket, this, _settings.WireLimit);
        AkkaTelemetry.Associations.Add(1, AkkaTelemetry.Inbound);
        Task run = Run(handle, disposeAfter: false, announce: listener);
        await run.ConfigureAwait(false);
    }

    internal void Ended(WebSocketAssociationHandle handle, WebSocketCloseInfo info)
    {
        if (!info.IsClean && !_shutdown.IsCancellationRequested)
        {
            _log.Info("Association {0} -> {1} ended: {2}", handle.LocalAddress, handle.RemoteAddress, info);
        }
    }

    internal void LogOversized(WebSocketAssociationHandle handle, int length) =>
        _log.Error("Dropped a {0}-byte payload to {1}: above maximum-frame-size ({2} bytes) and the protocol envelope", length, handle.RemoteAddress, MaximumPayloadBytes);

    private Task Run(WebSocketAssociationHandle handle, bool disposeAfter, IAssociationEventListener? announce = null)
    {
        var reader = new AssociationReader(handle, ArrayPool<byte>.Shared);
        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task run = RunAsync(handle, reader, started.Task, disposeAfter);
        _associations[handle] = run;
        started.SetResult();
        announce?.Notify(new InboundAssociation(handle));
        return run;
    }

    private async Task RunAsync(WebSocketAssociationHandle handle, AssociationReader reader, Task started, bool disposeAfter)
    {
        await started.ConfigureAwait(false);
        try
        {
            await handle.WebSocket.RunAsync(reader).ConfigureAwait(false);
        }
        finally
        {
            _associations.TryRemove(handle, out _);
            if (disposeAfter)
            {
                await handle.WebSocket.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    /// <summary>tls.require-client-certificate: an inbound websocket whose connection carries no client certificate
    /// is refused (the self-hosted listener fails such a TLS handshake before that).</summary>
    internal bool RequiresClientCertificate => _settings.RequireClientCertificate;

    private X509Certificate2 ServerCertificate() =>
        _ownCertificate.Value ?? throw new ConfigurationException(
            "akka.remote.websocket.tls.enabled = on needs tls.certificate.path (a PKCS#12 file) or a WebSocketRemotingSetup with a ServerCertificate.");

    /// <summary>This node's certificate (the setup's object, else tls.certificate.path), loaded once, or null.</summary>
    private X509Certificate2? OwnCertificate() =>
        _setup?.ServerCertificate is { } certificate ? certificate
        : string.IsNullOrEmpty(_settings.CertificatePath) ? null
        : X509CertificateLoader.LoadPkcs12FromFile(_settings.CertificatePath, _settings.CertificatePassword);

    /// <summary>What outbound associations present when a server asks for a certificate: the setup's
    /// ClientCertificate, else tls.client-certificate.path, else (with require-client-certificate on, as Akka's
    /// DotNetty transport does) this node's own certificate; null presents none.</summary>
    private X509Certificate2? ClientCertificate()
    {
        if (_setup?.ClientCertificate is { } certificate)
        {
            return certificate;
        }

        if (!string.IsNullOrEmpty(_settings.ClientCertificatePath))
        {
            try
            {
                return X509CertificateLoader.LoadPkcs12FromFile(_settings.ClientCertificatePath, _settings.ClientCertificatePassword);
            }
            catch (Exception error) when (error is CryptographicException or IOException or UnauthorizedAccessException)
            {
                throw new ConfigurationException($"akka.remote.websocket.tls.client-certificate: cannot load the PKCS#12 file {_settings.ClientCertificatePath}: {error.Message}", error);
            }
        }

        return _settings.RequireClientCertificate ? _ownCertificate.Value : null;
    }
}
