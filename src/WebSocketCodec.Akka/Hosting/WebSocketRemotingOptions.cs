namespace WebSocketCodec.Akka;

/// <summary>The websocket transport's settings for Akka.Hosting: pass them to
/// <see cref="AkkaWebSocketRemotingExtensions.WithWebSocketRemoting(global::Akka.Hosting.AkkaConfigurationBuilder, WebSocketRemotingOptions)"/>
/// to set the address, the path, HTTP/2, a proxy, TLS, the frame size and the timeouts without HOCON.</summary>
/// <remarks>Each property is the HOCON key of the same name under <c>akka.remote.websocket</c>. A property left null
/// keeps what the configuration already says there, else the default of reference.conf.</remarks>
public sealed class WebSocketRemotingOptions
{
    /// <summary><c>hostname</c>: the address to bind (self-hosted); an IP address or a host name; empty binds every
    /// interface and advertises the machine's host name.</summary>
    public string? HostName { get; set; }

    /// <summary><c>port</c>: the port to bind; 0 takes any free port. In endpoint mode, the application's port
    /// (<see cref="ApplicationServices"/>: Akka.Hosting starts the actor system before the application binds, so
    /// endpoint mode needs it or <see cref="PublicPort"/>).</summary>
    public int? Port { get; set; }

    /// <summary><c>public-hostname</c>: the host other nodes reach this one at, behind a proxy, NAT or a container.</summary>
    public string? PublicHostName { get; set; }

    /// <summary><c>public-port</c>: the port other nodes reach this one at.</summary>
    public int? PublicPort { get; set; }

    /// <summary><c>path</c>: the websocket path; a node is at <c>{path}/{actor system name}</c> (the same on every node).</summary>
    public string? Path { get; set; }

    /// <summary><c>http2</c>: outbound associations as streams of one HTTP/2 connection per host and port.</summary>
    public bool? Http2 { get; set; }

    /// <summary><c>proxy</c>: the HTTP proxy outbound associations tunnel through with HTTP CONNECT (over HTTP/1.1
    /// and HTTP/2 alike), as <c>http://[user:password@]host:port</c> (the user information, percent-encoded, becomes
    /// Basic credentials). Reach for it when nodes can reach each other only through a forward proxy. "" connects
    /// directly; null leaves what the configuration says (direct by default). Other schemes are refused.</summary>
    public string? Proxy { get; set; }

    /// <summary><c>tls</c>: wss:// associations (addresses <c>akka.wss://</c>); null leaves TLS as configured (off by
    /// default).</summary>
    public WebSocketRemotingTlsOptions? Tls { get; set; }

    /// <summary><c>maximum-frame-size</c> in bytes: the largest Akka PDU (at least 32,000).</summary>
    public long? MaximumFrameSize { get; set; }

    /// <summary><c>connection-timeout</c>: how long an association waits for the connect and the handshake.</summary>
    public TimeSpan? ConnectionTimeout { get; set; }

    /// <summary><c>outbound-high-water-mark</c> in bytes: above it an association's writes are refused (Akka retries).</summary>
    public long? OutboundHighWaterMark { get; set; }

    /// <summary><c>outbound-low-water-mark</c> in bytes: writable again below it.</summary>
    public long? OutboundLowWaterMark { get; set; }

    /// <summary><c>keep-alive-interval</c>: websocket pings on idle associations; <see cref="TimeSpan.Zero"/> turns
    /// them off.</summary>
    public TimeSpan? KeepAliveInterval { get; set; }

    /// <summary><c>keep-alive-timeout</c>: a missing pong for this long ends the association.</summary>
    public TimeSpan? KeepAliveTimeout { get; set; }

    /// <summary><c>close-timeout</c>: how long a disassociation waits for the peer's Close.</summary>
    public TimeSpan? CloseTimeout { get; set; }

    /// <summary>Endpoint mode: the services of the ASP.NET Core application that called
    /// <see cref="AkkaRemotingEndpointExtensions.AddAkkaRemoting"/> and maps
    /// <see cref="AkkaRemotingEndpointExtensions.MapAkkaRemoting"/> (the provider Akka.Hosting's
    /// <c>AddAkka(name, (builder, services) =&gt; ...)</c> hands over). The transport binds nothing; other nodes reach
    /// this one on the application's port. Null: self-hosted (the transport binds its own listener).</summary>
    public IServiceProvider? ApplicationServices { get; set; }
}
