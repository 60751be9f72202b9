using System.Globalization;
using System.Text;
using Akka.Configuration;

namespace WebSocketCodec.Akka;

/// <summary>The HOCON that <see cref="WebSocketRemotingOptions"/> stand for: the transport enabled (alone) with its
/// class, and a key under <c>akka.remote.websocket</c> for every option that is set.</summary>
internal static class WebSocketRemotingHocon
{
    public static Config From(WebSocketRemotingOptions options)
    {
        var hocon = new StringBuilder();
        hocon.AppendLine("akka.remote.enabled-transports = [\"akka.remote.websocket\"]");
        hocon.AppendLine("akka.remote.websocket {");
        Key(hocon, "transport-class", Quoted(typeof(WebSocketTransport).FullName + ", " + typeof(WebSocketTransport).Assembly.GetName().Name));
        Key(hocon, "hostname", options.HostName is { } host ? Quoted(host) : null);
        Key(hocon, "port", Number(options.Port));
        Key(hocon, "public-hostname", options.PublicHostName is { } publicHost ? Quoted(publicHost) : null);
        Key(hocon, "public-port", Number(options.PublicPort));
        Key(hocon, "path", options.Path is { } path ? Quoted(path) : null);
        Key(hocon, "http2", Switch(options.Http2));
        Key(hocon, "proxy", options.Proxy is { } proxy ? Quoted(proxy) : null);
        if (options.Tls is { } tls)
        {
            Key(hocon, "tls.enabled", "on");
            Key(hocon, "tls.certificate.path", tls.CertificatePath is { } file ? Quoted(file) : null);
            Key(hocon, "tls.certificate.password", tls.CertificatePassword is { } password ? Quoted(password) : null);
            Key(hocon, "tls.suppress-validation", Switch(tls.SuppressValidation));
            Key(hocon, "tls.require-client-certificate", Switch(tls.RequireClientCertificate));
            Key(hocon, "tls.client-certificate.path", tls.ClientCertificatePath is { } clientFile ? Quoted(clientFile) : null);
            Key(hocon, "tls.client-certificate.password", tls.ClientCertificatePassword is { } clientPassword ? Quoted(clientPassword) : null);
        }

        Key(hocon, "maximum-frame-size", Bytes(options.MaximumFrameSize));
        Key(hocon, "connection-timeout", Duration(options.ConnectionTimeout));
        Key(hocon, "outbound-high-water-mark", Bytes(options.OutboundHighWaterMark));
        Key(hocon, "outbound-low-water-mark", Bytes(options.OutboundLowWaterMark));
        Key(hocon, "keep-alive-interval", Duration(options.KeepAliveInterval));
        Key(hocon, "keep-alive-timeout", Duration(options.KeepAliveTimeout));
        Key(hocon, "close-timeout", Duration(options.CloseTimeout));
        hocon.AppendLine("}");
        return ConfigurationFactory.ParseString(hocon.ToString());
    }

    private static void Key(StringBuilder hocon, string key, string? value)
    {
        if (value is not null)
        {
            hocon.Append("  ").Append(key).Append(" = ").AppendLine(value);
        }
    }

    /// <summary>A HOCON quoted string (JSON's escapes), so paths, passwords and host names pass unchanged.</summary>
    private static string Quoted(string value)
    {
        var quoted = new StringBuilder(value.Length + 2).Append('"');
        foreach (char c in value)
        {
            _ = c switch
            {
                '"' => quoted.Append("\\\""),
                '\\' => quoted.Append("\\\\"),
                '\n' => quoted.Append("\\n"),
                '\r' => quoted.Append("\\r"),
                '\t' => quoted.Append("\\t"),
                < ' ' => quoted.Append(CultureInfo.InvariantCulture, $"\\u{(int)c:x4}"),
                _ => quoted.Append(c),
            };
        }

        return quoted.Append('"').ToString();
    }

    private static string? Number(int? value) => value?.ToString(CultureInfo.InvariantCulture);

    private static string? Switch(bool? value) => value switch { true => "on", false => "off", null => null };

    private static string? Bytes(long? value) => value is { } bytes ? bytes.ToString(CultureInfo.InvariantCulture) + "b" : null;

    /// <summary>Whole milliseconds (HOCON's "ms" unit); a negative duration is refused here, not by Akka later.</summary>
    private static string? Duration(TimeSpan? value)
    {
        if (value is not { } duration)
        {
            return null;
        }

        if (duration < TimeSpan.Zero)
        {
            throw new ConfigurationException($"akka.remote.websocket: a duration must not be negative, not {duration}.");
        }

        return ((long)duration.TotalMilliseconds).ToString(CultureInfo.InvariantCulture) + "ms";
    }
}
