export default function Page() {
  return <h1>transactions-page</h1>;
}
