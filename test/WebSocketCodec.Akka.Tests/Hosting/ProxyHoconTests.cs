using Akka.Actor;
using Akka.Configuration;
using Akka.Hosting;
using Microsoft.Extensions.DependencyInjection;

namespace WebSocketCodec.Akka.Tests.Hosting;

/// <summary><c>akka.remote.websocket.proxy</c> as a setting: "" (direct) by default, rendered from
/// <see cref="WebSocketRemotingOptions.Proxy"/>, and checked when the settings are read: anything but an
/// <c>http://[user:password@]host:port</c> URL is refused with a message naming the key (and never the password).</summary>
public sealed class ProxyHoconTests
{
    [Fact]
    public void The_default_is_direct()
    {
        Assert.Equal("", WebSocketTransport.DefaultConfig.GetString("akka.remote.websocket.proxy"));
    }

    [Fact]
    public void The_hosting_option_becomes_the_key()
    {
        AkkaConfigurationBuilder builder = Builder().WithWebSocketRemoting(options => options.Proxy = "http://user:p%40ss@proxy.example:3128");

        Assert.Equal("http://user:p%40ss@proxy.example:3128", builder.Configuration.Value.GetString("akka.remote.websocket.proxy"));
    }

    [Fact]
    public void An_unset_hosting_option_keeps_what_the_configuration_says_and_an_empty_one_connects_directly()
    {
        AkkaConfigurationBuilder kept = Builder()
            .AddHocon("akka.remote.websocket.proxy = \"http://proxy.example:3128\"", HoconAddMode.Prepend)
            .WithWebSocketRemoting(_ => { });
        AkkaConfigurationBuilder direct = Builder()
            .AddHocon("akka.remote.websocket.proxy = \"http://proxy.example:3128\"", HoconAddMode.Prepend)
            .WithWebSocketRemoting(options => options.Proxy = "");

        Assert.Equal("http://proxy.example:3128", kept.Configuration.Value.GetString("akka.remote.websocket.proxy"));
        Assert.Equal("", direct.Configuration.Value.GetString("akka.remote.websocket.proxy"));
    }

    [Theory]
    [InlineData("http://127.0.0.1:3128")]
    [InlineData("http://proxy.example:3128/")]
    [InlineData("http://user:p%40ss@proxy.example")]
    [InlineData("  http://[::1]:8080  ")]
    public void Http_proxy_urls_are_taken(string proxy)
    {
        _ = Builder().WithWebSocketRemoting(options => options.Proxy = proxy);
    }

    [Theory]
    [InlineData("socks5://user:secret@127.0.0.1:1080", "socks5")]
    [InlineData("https://user:secret@proxy.example:443", "https")]
    [InlineData("127.0.0.1:3128", "")]
    [InlineData("not a url", "")]
    [InlineData("http://user:secret@proxy.example:3128/some/path", "path")]
    [InlineData("http://proxy.example:3128/?q=1", "path")]
    public void Other_values_are_refused_with_the_key_named(string proxy, string said)
    {
        ConfigurationException hosting = Assert.Throws<ConfigurationException>(() => Builder().WithWebSocketRemoting(options => options.Proxy = proxy));
        ConfigurationException hocon = Assert.Throws<ConfigurationException>(() => Transport($"proxy = \"{proxy}\""));

        foreach (ConfigurationException refused in (ConfigurationException[])[hosting, hocon])
        {
            Assert.Contains("akka.remote.websocket.proxy", refused.Message, StringComparison.Ordinal);
            Assert.Contains("http://[user:password@]host:port", refused.Message, StringComparison.Ordinal);
            Assert.Contains(said, refused.Message, StringComparison.Ordinal);
            Assert.DoesNotContain("secret", refused.Message, StringComparison.Ordinal);
        }
    }

    private static AkkaConfigurationBuilder Builder() => new(new ServiceCollection(), "options");

    /// <summary>Creates the transport as Akka.Remote does, on a local actor system, with these keys under
    /// akka.remote.websocket (the transport reads its settings in its constructor).</summary>
    private static void Transport(string websocket)
    {
        using ActorSystem system = ActorSystem.Create("settings", "akka.loglevel = OFF");
        _ = new WebSocketTransport(system, ConfigurationFactory.ParseString(websocket));
    }
}
