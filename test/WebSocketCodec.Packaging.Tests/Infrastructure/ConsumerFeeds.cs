using System.Security;

namespace WebSocketCodec.Packaging.Tests.Infrastructure;

/// <summary>
/// The nuget.config of a fresh consumer project: the folder the packages were packed into, and the feeds this machine
/// is configured with (as <c>dotnet nuget list source</c> reports them); <c>packageSourceMapping</c> sends
/// WebSocketCodec and WebSocketCodec.* to the folder only and every other package to the feeds.
/// </summary>
internal static class ConsumerFeeds
{
    public static async Task<string> WriteNuGetConfigAsync(string projectRoot, string localFeed)
    {
        // Asked from the fresh folder before its nuget.config exists: the machine's and the user's sources.
        (int exitCode, string output) = await DotnetProcess.RunAsync(
            projectRoot, ["nuget", "list", "source", "--format", "short"], TimeSpan.FromMinutes(1));
        if (exitCode != 0)
            throw new InvalidOperationException("dotnet nuget list source failed:\n" + output);
        string[] feeds = output.Split('\n', StringSplitOptions.TrimEntries)
            .Where(line => line.StartsWith("E ", StringComparison.Ordinal))
            .Select(line => line[2..].Trim())
            .ToArray();

        string sources = string.Concat(feeds.Select((feed, i) => $"""
                <add key="feed{i}" value="{SecurityElement.Escape(feed)}" />

            """));
        string mappings = string.Concat(feeds.Select((_, i) => $"""
                <packageSource key="feed{i}"><package pattern="*" /></packageSource>

            """));
        string config = $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="local" value="{SecurityElement.Escape(localFeed)}" />
            {sources}  </packageSources>
              <packageSourceMapping>
                <packageSource key="local">
                  <package pattern="WebSocketCodec" />
                  <package pattern="WebSocketCodec.*" />
                </packageSource>
            {mappings}  </packageSourceMapping>
            </configuration>

            """;
        string path = Path.Combine(projectRoot, "nuget.config");
        await File.WriteAllTextAsync(path, config);
        return config;
    }
}
