using WebSocketCodec.Testing;

namespace WebSocketCodec.Packaging.Tests.Infrastructure;

/// <summary>Where this repository is, and the configuration this test assembly (and so src/) was built in.</summary>
internal static class Repository
{
#if DEBUG
    public const string Configuration = "Debug";
#else
    public const string Configuration = "Release";
#endif

    /// <summary>The folder holding WebSocketCodec.sln (found once, by <see cref="DocBlocks.Root"/>).</summary>
    public static string Root => DocBlocks.Root;

    public static string Source(string project) => Path.Combine(Root, "src", project, project + ".csproj");
}
