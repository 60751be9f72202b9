namespace WebSocketCodec.Packaging.Tests.Infrastructure;

/// <summary>Where this repository is, and the configuration this test assembly (and so src/) was built in.</summary>
internal static class Repository
{
#if DEBUG
    public const string Configuration = "Debug";
#else
    public const string Configuration = "Release";
#endif

    /// <summary>The folder holding WebSocketCodec.sln, found upwards from the test assembly.</summary>
    public static string Root { get; } = FindRoot();

    public static string Source(string project) => Path.Combine(Root, "src", project, project + ".csproj");

    private static string FindRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "WebSocketCodec.sln")))
                return dir.FullName;
        }

        throw new InvalidOperationException("WebSocketCodec.sln not found above " + AppContext.BaseDirectory);
    }
}
