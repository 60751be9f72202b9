namespace WebSocketCodec.Packaging.Tests.Infrastructure;

/// <summary>A fresh folder under the system's temporary folder, outside the repository, deleted on dispose.</summary>
internal sealed class TempFolder : IDisposable
{
    public TempFolder(string prefix)
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), prefix + "-" + Guid.NewGuid().ToString("N")[..12]);
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    public string Combine(params string[] parts) => System.IO.Path.Combine([Path, .. parts]);

    /// <summary>Writes <paramref name="text"/> to a file under this folder, creating its folders.</summary>
    public string Write(string relativePath, string text)
    {
        string file = Combine(relativePath);
        Directory.CreateDirectory(System.IO.Path.GetDirectoryName(file)!);
        File.WriteAllText(file, text);
        return file;
    }

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
            // A child process may still hold a file for a moment; the folder is in the temporary folder anyway.
        }
        catch (UnauthorizedAccessException)
        {
        }
    }
}
