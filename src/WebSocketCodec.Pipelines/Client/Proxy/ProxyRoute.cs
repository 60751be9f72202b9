using System.Net;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// Which proxy, if any, a websocket to a server goes through: the application's <see cref="IWebProxy"/> asked as
/// <c>HttpClient</c> asks it (with the <c>http</c>/<c>https</c> form of the <c>ws</c>/<c>wss</c> URI, so
/// <c>HttpClient.DefaultProxy</c>'s environment variables apply), its answer checked: an HTTP proxy is used, a SOCKS or
/// HTTPS proxy is refused (never a silent direct connection).
/// </summary>
internal readonly record struct ProxyRoute(Uri Proxy, NetworkCredential? Credential)
{
    /// <summary>The route to <paramref name="server"/> through <paramref name="proxy"/>, or null for a direct
    /// connection (no proxy, or the server is bypassed).</summary>
    /// <exception cref="NotSupportedException">The proxy is not an <c>http://</c> proxy.</exception>
    public static ProxyRoute? For(IWebProxy? proxy, Uri server)
    {
        if (proxy is null)
        {
            return null;
        }

        Uri asked = server.Scheme switch
        {
            "ws" => new UriBuilder(server) { Scheme = Uri.UriSchemeHttp }.Uri,
            "wss" => new UriBuilder(server) { Scheme = Uri.UriSchemeHttps }.Uri,
            _ => server,
        };
        if (proxy.IsBypassed(asked))
        {
            return null;
        }

        Uri? through = proxy.GetProxy(asked);
        if (through is null || through == asked)
        {
            return null; // IWebProxy's way of saying "direct"
        }

        if (through.Scheme != Uri.UriSchemeHttp)
        {
            throw new NotSupportedException(
                $"The proxy {Shown(through)} is a {through.Scheme} proxy: websockets go through HTTP proxies only (HTTP CONNECT); SOCKS and HTTPS proxies are not supported.");
        }

        NetworkCredential? credential = proxy.Credentials?.GetCredential(through, "Basic");
        if (credential is null && through.UserInfo.Length > 0)
        {
            string[] parts = through.UserInfo.Split(':', 2);
            credential = new NetworkCredential(Uri.UnescapeDataString(parts[0]), parts.Length > 1 ? Uri.UnescapeDataString(parts[1]) : "");
        }

        return new ProxyRoute(through, credential);
    }

    /// <summary>The proxy's address without its user information, for messages.</summary>
    public static string Shown(Uri proxy) => $"{proxy.Scheme}://{proxy.Authority}";
}
