using System.Net;
using System.Reflection;
using Akka.Configuration;

namespace WebSocketCodec.Akka;

/// <summary>The transport's HOCON section (akka.remote.websocket), read once, over the defaults in reference.conf.</summary>
internal sealed class WebSocketTransportSettings
{
    private const long MinimumFrameSize = 32000;

    public WebSocketTransportSettings(Config? config)
    {
        Config merged = (config ?? Config.Empty).WithFallback(Defaults);
        Hostname = merged.GetString("hostname", "");
        Port = merged.GetInt("port", 0);
        PublicHostname = merged.GetString("public-hostname", "");
        PublicPort = merged.GetInt("public-port", 0);
        Path = NormalizePath(merged.GetString("path", "/akka"));
        Tls = merged.GetBoolean("tls.enabled", false);
        CertificatePath = merged.GetString("tls.certificate.path", "");
        CertificatePassword = merged.GetString("tls.certificate.password", "");
        SuppressValidation = merged.GetBoolean("tls.suppress-validation", false);
        RequireClientCertificate = merged.GetBoolean("tls.require-client-certificate", false);
        ClientCertificatePath = merged.GetString("tls.client-certificate.path", "");
        ClientCertificatePassword = merged.GetString("tls.client-certificate.password", "");
        Proxy = ProxySetting.Parse(merged.GetString("proxy", ""));
        Http2 = merged.GetBoolean("http2", false);
        MaximumFrameSize = merged.GetByteSize("maximum-frame-size") ?? 128000;
        ConnectionTimeout = merged.GetTimeSpan("connection-timeout", TimeSpan.FromSeconds(15));
        HighWaterMark = merged.GetByteSize("outbound-high-water-mark") ?? 4 << 20;
        LowWaterMark = merged.GetByteSize("outbound-low-water-mark") ?? 2 << 20;
        KeepAliveInterval = merged.GetTimeSpan("keep-alive-interval", TimeSpan.FromSeconds(30));
        KeepAliveTimeout = merged.GetTimeSpan("keep-alive-timeout", TimeSpan.FromSeconds(30));
        CloseTimeout = merged.GetTimeSpan("close-timeout", TimeSpan.FromSeconds(5));
        Validate();
    }

    /// <summary>reference.conf, embedded in this assembly (keys from akka.remote.websocket down).</summary>
    public static Config FullDefaults { get; } = LoadDefaults();

    /// <summary>The akka.remote.websocket section of <see cref="FullDefaults"/>.</summary>
    public static Config Defaults { get; } = FullDefaults.GetConfig("akka.remote.websocket");

    public string Hostname { get; }

    public int Port { get; }

    public string PublicHostname { get; }

    public int PublicPort { get; }

    /// <summary>The websocket path without a trailing slash ("/akka"); a system is at Path/name.</summary>
    public string Path { get; }

    public bool Tls { get; }

    public string CertificatePath { get; }

    public string CertificatePassword { get; }

    public bool SuppressValidation { get; }

    /// <summary>tls.require-client-certificate: inbound associations must present a client certificate (mutual TLS).</summary>
    public bool RequireClientCertificate { get; }

    /// <summary>tls.client-certificate.path: the PKCS#12 file outbound associations present ("" = none given).</summary>
    public string ClientCertificatePath { get; }

    public string ClientCertificatePassword { get; }

    /// <summary>proxy: the HTTP proxy outbound associations tunnel through (null = direct).</summary>
    public ProxySetting? Proxy { get; }

    public bool Http2 { get; }

    public long MaximumFrameSize { get; }

    /// <summary>The largest websocket message an association carries: <see cref="MaximumFrameSize"/> is what Akka's
    /// endpoint writer checks a PDU against, and Akka's protocol layer then wraps the PDU once more (a protobuf field
    /// tag and length, at most 6 bytes) before it reaches the transport; 64 bytes of room cover that.</summary>
    public long WireLimit => MaximumFrameSize + ProtocolEnvelope;

    private const int ProtocolEnvelope = 64;

    public TimeSpan ConnectionTimeout { get; }

    public long HighWaterMark { get; }

    public long LowWaterMark { get; }

    public TimeSpan KeepAliveInterval { get; }

    public TimeSpan KeepAliveTimeout { get; }

    public TimeSpan CloseTimeout { get; }

    /// <summary>The scheme of this transport's addresses: ws, or wss with TLS (Akka shows them as akka.ws://).</summary>
    public string Scheme => Tls ? "wss" : "ws";

    /// <summary>The IP address to bind: hostname when it is one, every interface when it is empty, else what DNS gives.</summary>
    public IPAddress BindAddress()
    {
        if (string.IsNullOrEmpty(Hostname))
        {
            return IPAddress.Any;
        }

        return IPAddress.TryParse(Hostname, out IPAddress? address)
            ? address
            : Dns.GetHostAddresses(Hostname).First(a => a.AddressFamily == System.Net.Sockets.AddressFamily.InterNetwork);
    }

    /// <summary>The host name in this node's address: public-hostname, else hostname, else the machine's name.</summary>
    public string AdvertisedHost() =>
        !string.IsNullOrEmpty(PublicHostname) ? PublicHostname
        : !string.IsNullOrEmpty(Hostname) ? Hostname
        : Dns.GetHostName();

    /// <summary>The websocket session options every association runs with.</summary>
    public WebSocketSessionOptions SessionOptions() => new()
    {
        MaxMessagePayloadLength = WireLimit,
        MaxFramePayloadLength = (int)WireLimit,
        OutboundHighWaterMark = HighWaterMark,
        OutboundLowWaterMark = LowWaterMark,
        KeepAliveInterval = KeepAliveInterval,
        KeepAliveTimeout = KeepAliveTimeout,
        CloseTimeout = CloseTimeout,
        ValidateUtf8 = false, // Akka sends binary messages only; a text message fails the association anyway
    };

    private static string NormalizePath(string path)
    {
        path = path.Trim();
        if (!path.StartsWith('/'))
        {
            path = "/" + path;
        }

        return path.TrimEnd('/');
    }

    private void Validate()
    {
        if (MaximumFrameSize < MinimumFrameSize || MaximumFrameSize > int.MaxValue - ProtocolEnvelope)
        {
            throw new ConfigurationException($"akka.remote.websocket.maximum-frame-size must be at least {MinimumFrameSize} bytes (and below 2 GiB), not {MaximumFrameSize}.");
        }

        if (LowWaterMark > HighWaterMark || HighWaterMark <= 0)
        {
            throw new ConfigurationException("akka.remote.websocket: outbound-low-water-mark must not exceed outbound-high-water-mark, which must be positive.");
        }

        if (Port is < 0 or > 65535 || PublicPort is < 0 or > 65535)
        {
            throw new ConfigurationException("akka.remote.websocket: port and public-port must be between 0 and 65535.");
        }

        if (RequireClientCertificate && !Tls)
        {
            throw new ConfigurationException("akka.remote.websocket.tls.require-client-certificate = on needs tls.enabled = on (client certificates are a TLS feature).");
        }
    }

    private static Config LoadDefaults()
    {
        using Stream stream = typeof(WebSocketTransportSettings).Assembly.GetManifestResourceStream("WebSocketCodec.Akka.reference.conf")
            ?? throw new InvalidOperationException("reference.conf is missing from WebSocketCodec.Akka.");
        using var reader = new StreamReader(stream);
        return ConfigurationFactory.ParseString(reader.ReadToEnd());
    }
}
