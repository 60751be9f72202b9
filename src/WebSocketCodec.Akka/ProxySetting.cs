using System.Net;
using Akka.Configuration;

namespace WebSocketCodec.Akka;

/// <summary>
/// <c>akka.remote.websocket.proxy</c>, checked when the settings are read: an <c>http://[user:password@]host:port</c>
/// URL naming the HTTP proxy that outbound associations tunnel through with HTTP CONNECT (HTTP/1.1 and HTTP/2 alike).
/// The user information, percent-decoded, becomes the proxy's Basic credentials; it never appears in messages.
/// </summary>
internal sealed class ProxySetting
{
    private const string Key = "akka.remote.websocket.proxy";
    private const string Form = "http://[user:password@]host:port";

    private ProxySetting(Uri address, NetworkCredential? credential)
    {
        Address = address;
        Credential = credential;
    }

    /// <summary>The proxy's address without its user information (<c>http://host:port/</c>).</summary>
    public Uri Address { get; }

    /// <summary>The Basic credentials of the URL's user information, or null.</summary>
    public NetworkCredential? Credential { get; }

    /// <summary>The setting, or null for "" (direct connections).</summary>
    /// <exception cref="ConfigurationException">Not an absolute http:// URL with a host and nothing after the port.</exception>
    public static ProxySetting? Parse(string? value)
    {
        value = value?.Trim();
        if (string.IsNullOrEmpty(value))
        {
            return null;
        }

        if (!Uri.TryCreate(value, UriKind.Absolute, out Uri? uri) || string.IsNullOrEmpty(uri.Host))
        {
            throw new ConfigurationException($"{Key} must be a URL of the form {Form} (or \"\" for direct connections); the value given is not one.");
        }

        if (uri.Scheme != Uri.UriSchemeHttp)
        {
            throw new ConfigurationException(
                $"{Key} must be an http:// proxy ({Form}): associations tunnel through HTTP CONNECT; {uri.Scheme}:// proxies are not supported.");
        }

        if (uri.AbsolutePath != "/" || uri.Query.Length > 0 || uri.Fragment.Length > 0)
        {
            throw new ConfigurationException($"{Key} must be {Form}, without a path, query or fragment (the proxy is {uri.Scheme}://{uri.Authority}).");
        }

        NetworkCredential? credential = null;
        if (uri.UserInfo.Length > 0)
        {
            string[] parts = uri.UserInfo.Split(':', 2);
            credential = new NetworkCredential(Uri.UnescapeDataString(parts[0]), parts.Length > 1 ? Uri.UnescapeDataString(parts[1]) : "");
        }

        return new ProxySetting(new UriBuilder(uri) { UserName = "", Password = "" }.Uri, credential);
    }

    /// <summary>The proxy as the websocket clients take it (<see cref="WebSocketClientOptions.Proxy"/>): every
    /// address goes through it, loopback included.</summary>
    public IWebProxy ToWebProxy() => new WebProxy(Address) { Credentials = Credential, BypassProxyOnLocal = false };
}
