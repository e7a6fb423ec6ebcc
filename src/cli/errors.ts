// The CLI's outcomes besides success, each one line on stderr:
//   UsageError  exit 2  the command line is wrong (the line ends with a pointer to --help)
//   FileError   exit 2  a named file cannot be read or written, or ctkit refuses to write it
//                       (it exists, its directory is missing, binary output to a terminal)
//   Failure     exit 1  authentication or verification failed, the input is damaged, or a key
//                       (or peer key) is invalid; the message says why
export class UsageError extends Error {
  override name = 'UsageError';
}
export class FileError extends Error {
  override name = 'FileError';
}
export class Failure extends Error {
  override name = 'Failure';
}
